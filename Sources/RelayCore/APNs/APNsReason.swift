/// A `reason` string from APNs error responses, with the HTTP status Apple pairs it with.
///
/// An open struct so that a reason the relay does not know (a newer Apple string, or one read back
/// from a log) round-trips unchanged. The strings and statuses are Apple's tables for device pushes
/// ("Handling notification responses from APNs") and for broadcast and channel management
/// ("Handling error responses from APNs"); see `apns-facts.md` §3–4.
public struct APNsReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The reason exactly as it appears on the wire, e.g. `BadDeviceToken`.
    public let rawValue: String
    /// The HTTP status Apple sends with this reason. Unknown reasons answer 400, the status of
    /// most request faults. Worked out once, when the reason is made: a `switch` over the known
    /// reasons on every read compared the string with each case in turn, several times a push.
    public let status: Int

    /// Wraps any reason string; unknown ones are kept as they are.
    public init(rawValue: String) {
        self.rawValue = rawValue
        status = Self.status(of: rawValue)
    }

    /// Reasons are equal when their strings are (the status follows from the string).
    public static func == (left: APNsReason, right: APNsReason) -> Bool { left.rawValue == right.rawValue }

    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    public var description: String { rawValue }

    // MARK: - 400, device pushes

    /// The `apns-collapse-id` value is longer than 64 bytes.
    public static let badCollapseId = APNsReason(rawValue: "BadCollapseId")
    /// The device token in `:path` is malformed (or belongs to the other environment).
    public static let badDeviceToken = APNsReason(rawValue: "BadDeviceToken")
    /// The `apns-expiration` value is not a Unix time in whole seconds.
    public static let badExpirationDate = APNsReason(rawValue: "BadExpirationDate")
    /// The `apns-id` (or broadcast `apns-request-id`) is not a canonical UUID.
    public static let badMessageId = APNsReason(rawValue: "BadMessageId")
    /// The `apns-priority` value is not one APNs accepts.
    public static let badPriority = APNsReason(rawValue: "BadPriority")
    /// The `apns-topic` value is malformed.
    public static let badTopic = APNsReason(rawValue: "BadTopic")
    /// The device token is valid but not registered for the topic.
    public static let deviceTokenNotForTopic = APNsReason(rawValue: "DeviceTokenNotForTopic")
    /// A header appears more than once.
    public static let duplicateHeaders = APNsReason(rawValue: "DuplicateHeaders")
    /// The connection sat idle for too long (sent in GOAWAY).
    public static let idleTimeout = APNsReason(rawValue: "IdleTimeout")
    /// The `apns-push-type` value is not allowed here.
    public static let invalidPushType = APNsReason(rawValue: "InvalidPushType")
    /// `:path` is `/3/device/` with no token.
    public static let missingDeviceToken = APNsReason(rawValue: "MissingDeviceToken")
    /// `apns-topic` is required (token authentication) but absent.
    public static let missingTopic = APNsReason(rawValue: "MissingTopic")
    /// The request has no body.
    public static let payloadEmpty = APNsReason(rawValue: "PayloadEmpty")
    /// Pushing to this topic is not allowed (wrong suffix, or a bundle the key may not push to).
    public static let topicDisallowed = APNsReason(rawValue: "TopicDisallowed")

    // MARK: - 400, broadcast and channel management

    /// Broadcast is not enabled for the app.
    public static let featureNotEnabled = APNsReason(rawValue: "FeatureNotEnabled")
    /// `apns-channel-id` is required but absent.
    public static let missingChannelId = APNsReason(rawValue: "MissingChannelId")
    /// `apns-channel-id` is malformed.
    public static let badChannelId = APNsReason(rawValue: "BadChannelId")
    /// The channel does not exist for this app and environment.
    public static let channelNotRegistered = APNsReason(rawValue: "ChannelNotRegistered")
    /// The request's parameters are invalid.
    public static let badRequestParams = APNsReason(rawValue: "BadRequestParams")
    /// The request body is invalid. The relay also uses it for device pushes whose body is not a
    /// Live Activity JSON payload (Apple documents no reason for that case).
    public static let badRequestPayload = APNsReason(rawValue: "BadRequestPayload")
    /// `apns-push-type` (or the channel body's `push-type`) is required but absent.
    public static let missingPushType = APNsReason(rawValue: "MissingPushType")
    /// The channel limit (10,000 per app and environment) is reached.
    public static let cannotCreateChannelConfig = APNsReason(rawValue: "CannotCreateChannelConfig")
    /// Not in Apple's tables; reported by a third party for a missing or invalid
    /// `message-storage-policy` when creating a channel. UNCERTAIN (apns-facts §3).
    public static let missingChannelQueueSize = APNsReason(rawValue: "MissingChannelQueueSize")

    // MARK: - 403

    /// The client certificate is invalid.
    public static let badCertificate = APNsReason(rawValue: "BadCertificate")
    /// The client certificate is for the other environment.
    public static let badCertificateEnvironment = APNsReason(rawValue: "BadCertificateEnvironment")
    /// The provider token's `iat` is more than an hour old.
    public static let expiredProviderToken = APNsReason(rawValue: "ExpiredProviderToken")
    /// The action is not allowed.
    public static let forbidden = APNsReason(rawValue: "Forbidden")
    /// The provider token is malformed, unknown or its signature does not verify.
    public static let invalidProviderToken = APNsReason(rawValue: "InvalidProviderToken")
    /// No certificate and no (or an empty) `authorization` header.
    public static let missingProviderToken = APNsReason(rawValue: "MissingProviderToken")
    /// The token's key is unrelated to the key used first on this connection.
    public static let unrelatedKeyIdInToken = APNsReason(rawValue: "UnrelatedKeyIdInToken")
    /// The token's key is not valid for this environment (newer Apple table only).
    public static let badEnvironmentKeyIdInToken = APNsReason(rawValue: "BadEnvironmentKeyIdInToken")
    /// Broadcast: the certificate or token does not match the bundle ID in the path.
    public static let topicMismatch = APNsReason(rawValue: "TopicMismatch")

    // MARK: - 404, 405, 410, 413, 429

    /// `:path` is not a provider API path.
    public static let badPath = APNsReason(rawValue: "BadPath")
    /// `:method` is not allowed on this path.
    public static let methodNotAllowed = APNsReason(rawValue: "MethodNotAllowed")
    /// The device token has expired.
    public static let expiredToken = APNsReason(rawValue: "ExpiredToken")
    /// The device token is no longer active for the topic (comes with a timestamp).
    public static let unregistered = APNsReason(rawValue: "Unregistered")
    /// The body is larger than the limit (4096 bytes, broadcast 5120).
    public static let payloadTooLarge = APNsReason(rawValue: "PayloadTooLarge")
    /// The provider token changed more than once in 20 minutes on one connection.
    public static let tooManyProviderTokenUpdates = APNsReason(rawValue: "TooManyProviderTokenUpdates")
    /// Too many requests in a row to one device token.
    public static let tooManyRequests = APNsReason(rawValue: "TooManyRequests")

    // MARK: - 5xx

    /// An internal server error.
    public static let internalServerError = APNsReason(rawValue: "InternalServerError")
    /// The service is unavailable (device pushes).
    public static let serviceUnavailable = APNsReason(rawValue: "ServiceUnavailable")
    /// The service is unavailable, spelled with a space as in Apple's broadcast error table.
    public static let serviceUnavailableBroadcast = APNsReason(rawValue: "Service Unavailable")
    /// The server is shutting down.
    public static let shutdown = APNsReason(rawValue: "Shutdown")

    /// Every reason Apple documents (plus `MissingChannelQueueSize`), for tables and tests.
    public static let allKnown: [APNsReason] = [
        .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
        .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
        .missingTopic, .payloadEmpty, .topicDisallowed, .featureNotEnabled, .missingChannelId, .badChannelId,
        .channelNotRegistered, .badRequestParams, .badRequestPayload, .missingPushType,
        .cannotCreateChannelConfig, .missingChannelQueueSize, .badCertificate, .badCertificateEnvironment,
        .expiredProviderToken, .forbidden, .invalidProviderToken, .missingProviderToken,
        .unrelatedKeyIdInToken, .badEnvironmentKeyIdInToken, .topicMismatch, .badPath, .methodNotAllowed,
        .expiredToken, .unregistered, .payloadTooLarge, .tooManyProviderTokenUpdates, .tooManyRequests,
        .internalServerError, .serviceUnavailable, .serviceUnavailableBroadcast, .shutdown,
    ]

    /// The status of the reason spelled `rawValue` (Apple's tables; 400 for any other).
    private static func status(of rawValue: String) -> Int {
        switch rawValue {
        case "BadCertificate", "BadCertificateEnvironment", "ExpiredProviderToken", "Forbidden",
            "InvalidProviderToken", "MissingProviderToken", "UnrelatedKeyIdInToken", "BadEnvironmentKeyIdInToken",
            "TopicMismatch":
            return 403
        case "BadPath": return 404
        case "MethodNotAllowed": return 405
        case "ExpiredToken", "Unregistered": return 410
        case "PayloadTooLarge": return 413
        case "TooManyProviderTokenUpdates", "TooManyRequests": return 429
        case "InternalServerError": return 500
        case "ServiceUnavailable", "Service Unavailable", "Shutdown": return 503
        default: return 400
        }
    }
}
