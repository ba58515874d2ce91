public import RelayCore

/// One received push as the push log keeps it: the columns it is found by plus the full record
/// (request, outcome) as JSON.
public struct PushLogEntry: Sendable, Equatable {
    /// The `apns-id` answered (echoed or generated).
    public var apnsId: String?
    /// The `apns-unique-id` answered.
    public var uniqueId: String?
    /// The device token it was sent to; nil for a broadcast.
    public var token: String?
    /// The channel it was broadcast on; nil for a device-token push.
    public var channelId: String?
    /// The app it was for.
    public var bundleId: String?
    /// When the relay received it, on the relay's clock.
    public var receivedAt: UnixSeconds
    /// The full record as serialized JSON.
    public var record: [UInt8]

    /// A push log entry with its lookup columns and JSON `record`.
    public init(
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
    public var id: Int64
    /// The entry itself.
    public var push: PushLogEntry

    /// An entry `push` stored under `id`.
    public init(id: Int64, push: PushLogEntry) {
        self.id = id
        self.push = push
    }
}
