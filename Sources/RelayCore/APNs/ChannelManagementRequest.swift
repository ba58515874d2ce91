/// A channel-management request that passed its checks (see `+Validation`).
///
/// | operation | method and path | success |
/// |---|---|---|
/// | create | `POST /1/apps/<bundleId>/channels`, body `{"message-storage-policy", "push-type"}` | `201`, `apns-channel-id` header, empty body |
/// | read | `GET /1/apps/<bundleId>/channels`, `apns-channel-id` | `200`, `BroadcastChannel.readBody` |
/// | delete | `DELETE /1/apps/<bundleId>/channels`, `apns-channel-id` | `204` |
/// | list | `GET /1/apps/<bundleId>/all-channels` | `200`, `BroadcastChannel.listBody` |
/// Every operation echoes `apns-request-id` (or a generated one) in the response.
public struct ChannelManagementRequest: Sendable, Hashable {
    /// The operation and its arguments.
    package enum Operation: Sendable, Hashable {
        /// Create a channel with this storage policy.
        case create(MessageStoragePolicy)
        /// Report one channel.
        case read(BroadcastChannelID)
        /// Delete one channel.
        case delete(BroadcastChannelID)
        /// List every channel ID of the app.
        case listAll
    }

    /// The app, from the path.
    package var bundleID: String
    /// What to do.
    package var operation: Operation
    /// `apns-request-id` as sent; nil when omitted.
    package var requestID: APNsMessageID?

    /// A checked request.
    package init(bundleID: String, operation: Operation, requestID: APNsMessageID?) {
        self.bundleID = bundleID
        self.operation = operation
        self.requestID = requestID
    }

    /// The status of a successful answer: 201 create, 204 delete, 200 otherwise.
    package var successStatus: Int {
        switch operation {
        case .create: return 201
        case .delete: return 204
        case .read, .listAll: return 200
        }
    }
}
