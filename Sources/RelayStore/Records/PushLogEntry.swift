public import RelayCore

/// One received push as the push log keeps it: the columns it is found by plus the full record
/// (request, outcome) as JSON.
public struct PushLogEntry: Sendable, Equatable {
    /// The `apns-id` answered (echoed or generated).
    public var apnsId: String? {
        get { members.value.apnsId }
        set { members.value.apnsId = newValue }
    }
    /// The `apns-unique-id` answered.
    public var uniqueId: String? {
        get { members.value.uniqueId }
        set { members.value.uniqueId = newValue }
    }
    /// The device token it was sent to; nil for a broadcast.
    public var token: String? {
        get { members.value.token }
        set { members.value.token = newValue }
    }
    /// The channel it was broadcast on; nil for a device-token push.
    public var channelId: String? {
        get { members.value.channelId }
        set { members.value.channelId = newValue }
    }
    /// The app it was for.
    public var bundleId: String? {
        get { members.value.bundleId }
        set { members.value.bundleId = newValue }
    }
    /// When the relay received it, on the relay's clock.
    public var receivedAt: UnixSeconds {
        get { members.value.receivedAt }
        set { members.value.receivedAt = newValue }
    }
    /// The full record as serialized JSON.
    public var record: [UInt8] {
        get { members.value.record }
        set { members.value.record = newValue }
    }

    /// The members behind one box (see `CopyOnWrite`): an entry is copied into its batch and again
    /// as the writer applies it.
    private var members: CopyOnWrite<Members>

    private struct Members: Sendable, Equatable {
        var apnsId: String?
        var uniqueId: String?
        var token: String?
        var channelId: String?
        var bundleId: String?
        var receivedAt: UnixSeconds
        var record: [UInt8]
    }

    /// A push log entry with its lookup columns and JSON `record`.
    public init(
        apnsId: String? = nil, uniqueId: String? = nil, token: String? = nil, channelId: String? = nil,
        bundleId: String? = nil, receivedAt: UnixSeconds, record: [UInt8]
    ) {
        members = CopyOnWrite(
            Members(
                apnsId: apnsId, uniqueId: uniqueId, token: token, channelId: channelId, bundleId: bundleId,
                receivedAt: receivedAt, record: record))
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
