package import RelayJSON

/// A broadcast channel as channel management reports it, and the response bodies of the
/// channel-management operations.
package struct BroadcastChannel: Sendable, Hashable {
    /// The channel's ID.
    package var id: BroadcastChannelID
    /// Its storage policy.
    package var storagePolicy: MessageStoragePolicy

    /// A channel.
    package init(id: BroadcastChannelID, storagePolicy: MessageStoragePolicy) {
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
    package static let pushTypeValue = "LiveActivity"

    /// The body of `GET /1/apps/<bundleId>/channels`:
    /// `{"message-storage-policy": <0|1>, "push-type": "LiveActivity"}`.
    package var readBody: JSONValue {
        .object([Key.storagePolicy: .int(Int64(storagePolicy.rawValue)), Key.pushType: .string(Self.pushTypeValue)])
    }

    /// The body of `GET /1/apps/<bundleId>/all-channels`: `{"channels": [<id>, ...]}`.
    package static func listBody(_ ids: [BroadcastChannelID]) -> JSONValue {
        .object([Key.channels: .array(ids.map { .string($0.rawValue) })])
    }

    /// Apple's per-app, per-environment channel limit.
    package static let maxChannelsPerApp = 10_000

    /// `400 CannotCreateChannelConfig` when an app already has `limit` channels, else nil. The
    /// server checks it after `ChannelManagementRequest.validate` accepted a create.
    package static func checkCapacity(existingChannels: Int, limit: Int = maxChannelsPerApp) -> APNsError? {
        guard existingChannels >= limit else { return nil }
        return APNsError(
            .cannotCreateChannelConfig,
            "the app has \(existingChannels) channels; the limit is \(limit) per environment")
    }

    /// `400 ChannelNotRegistered` for an ID the app does not have.
    package static func notRegistered(_ id: BroadcastChannelID, bundleID: String) -> APNsError {
        APNsError(.channelNotRegistered, "channel \(APNsASCII.quoted(id.rawValue)) does not exist for \(bundleID)")
    }
}
