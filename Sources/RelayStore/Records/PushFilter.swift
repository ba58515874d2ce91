/// Which push log entries a read returns: every given field must match; nil fields match anything.
public struct PushFilter: Sendable, Equatable {
    /// Only pushes to this device token.
    package var token: String?
    /// Only the push with this `apns-id`.
    package var apnsId: String?
    /// Only the push with this `apns-unique-id`.
    package var uniqueId: String?
    /// Only broadcasts on this channel.
    package var channelId: String?
    /// Only pushes for this app.
    package var bundleId: String?

    /// A filter matching the given fields; with no arguments, every push.
    public init(
        token: String? = nil, apnsId: String? = nil, uniqueId: String? = nil, channelId: String? = nil,
        bundleId: String? = nil
    ) {
        self.token = token
        self.apnsId = apnsId
        self.uniqueId = uniqueId
        self.channelId = channelId
        self.bundleId = bundleId
    }

    /// Matches every push.
    public static let all = PushFilter()
}
