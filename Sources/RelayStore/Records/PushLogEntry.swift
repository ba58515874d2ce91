package import RelayCore

/// One received push as the push log keeps it: the columns it is found by plus the full record
/// (request, outcome) as JSON.
package struct PushLogEntry: Sendable, Equatable {
    /// The `apns-id` answered (echoed or generated).
    package var apnsId: String?
    /// The `apns-unique-id` answered.
    package var uniqueId: String?
    /// The device token it was sent to; nil for a broadcast.
    package var token: String?
    /// The channel it was broadcast on; nil for a device-token push.
    package var channelId: String?
    /// The app it was for.
    package var bundleId: String?
    /// When the relay received it, on the relay's clock.
    package var receivedAt: UnixSeconds
    /// The full record as serialized JSON.
    package var record: [UInt8]

    /// A push log entry with its lookup columns and JSON `record`.
    package init(
        apnsId: String? = nil, uniqueId: String? = nil, token: String? = nil, channelId: String? = nil,
        bundleId: String? = nil, receivedAt: UnixSeconds, record: [UInt8]
    ) {
        self.apnsId = apnsId
        self.uniqueId = uniqueId
        self.token = token
        self.channelId = channelId
        self.bundleId = bundleId
        self.receivedAt = receivedAt
        self.record = record
    }
}

/// A push log entry read back, with the id the store gave it (larger is newer).
public struct StoredPush: Sendable, Equatable {
    /// The store's id for the entry; ids only grow, so they order the log.
    package var id: Int64
    /// The entry itself.
    package var push: PushLogEntry

    /// An entry `push` stored under `id`.
    package init(id: Int64, push: PushLogEntry) {
        self.id = id
        self.push = push
    }
}
