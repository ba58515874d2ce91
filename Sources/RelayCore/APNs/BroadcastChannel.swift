public import RelayJSON

/// A broadcast channel as channel management reports it, and the response bodies of the
/// channel-management operations.
public struct BroadcastChannel: Sendable, Hashable {
    /// The channel's ID.
    public var id: BroadcastChannelID
    /// Its storage policy.
    public var storagePolicy: MessageStoragePolicy

    /// A channel.
    public init(id: BroadcastChannelID, storagePolicy: MessageStoragePolicy) {
        self.id = id
        self.storagePolicy = storagePolicy
    }

    /// Wire keys of channel bodies.
    enum Key {
        static let storagePolicy = "message-storage-policy"
        static let pushType = "push-type"
        static let channels = "channels"
    }

    /// The `push-type` value of channel bodies.
    public static let pushTypeValue = "LiveActivity"

    /// The body of `GET /1/apps/<bundleId>/channels`:
    /// `{"message-storage-policy": <0|1>, "push-type": "LiveActivity"}`.
    public var readBody: JSONValue {
        .object([Key.storagePolicy: .int(Int64(storagePolicy.rawValue)), Key.pushType: .string(Self.pushTypeValue)])
    }

    /// The body of `GET /1/apps/<bundleId>/all-channels`: `{"channels": [<id>, ...]}`.
    public static func listBody(_ ids: [BroadcastChannelID]) -> JSONValue {
        .object([Key.channels: .array(ids.map { .string($0.rawValue) })])
    }

    /// Apple's per-app, per-environment channel limit.
    public static let maxChannelsPerApp = 10_000

    /// `400 CannotCreateChannelConfig` when an app already has `limit` channels, else nil. The
    /// server checks it after `ChannelManagementRequest.validate` accepted a create.
    public static func checkCapacity(existingChannels: Int, limit: Int = maxChannelsPerApp) -> APNsError? {
        guard existingChannels >= limit else { return nil }
        return APNsError(
            .cannotCreateChannelConfig,
            "the app has \(existingChannels) channels; the limit is \(limit) per environment")
    }

    /// `400 ChannelNotRegistered` for an ID the app does not have.
    public static func notRegistered(_ id: BroadcastChannelID, bundleID: String) -> APNsError {
        APNsError(.channelNotRegistered, "channel \(APNsASCII.quoted(id.rawValue)) does not exist for \(bundleID)")
    }
}
