/// Which push log entries a read returns: every given field must match; nil fields match anything.
public struct PushFilter: Sendable, Equatable {
    /// Only pushes to this device token.
    public var token: String?
    /// Only the push with this `apns-id`.
    public var apnsId: String?
    /// Only the push with this `apns-unique-id`.
    public var uniqueId: String?
    /// Only broadcasts on this channel.
    public var channelId: String?
    /// Only pushes for this app.
    public var bundleId: String?

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
