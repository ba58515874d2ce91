/// A `reason` string from APNs error responses, with the HTTP status Apple pairs it with.
///
/// An open struct so that a reason the relay does not know (a newer Apple string, or one read back
/// from a log) round-trips unchanged. The strings and statuses are Apple's tables for device pushes
/// ("Handling notification responses from APNs") and for broadcast and channel management
/// ("Handling error responses from APNs"); see `apns-facts.md` §3–4.
package struct APNsReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The reason exactly as it appears on the wire, e.g. `BadDeviceToken`.
    package let rawValue: String
    /// The HTTP status Apple sends with this reason (each known reason names its own below);
    /// unknown reasons answer 400, the status of most request faults. Stored: a `switch` over the
    /// known reasons compared the string with each case in turn, several times a push.
    package let status: Int

    /// Wraps any reason string; unknown ones are kept as they are, with status 400.
    package init(rawValue: String) {
        self.init(rawValue: rawValue, status: Self.allKnown.first { $0.rawValue == rawValue }?.status ?? 400)
    }

    /// A known reason with the status Apple pairs it with.
    private init(rawValue: String, status: Int) {
        self.rawValue = rawValue
        self.status = status
    }

    /// Reasons are equal when their strings are (the status follows from the string).
    package static func == (left: APNsReason, right: APNsReason) -> Bool { left.rawValue == right.rawValue }

    package func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    package var description: String { rawValue }

    // MARK: - 400, device pushes

    /// The `apns-collapse-id` value is longer than 64 bytes.
    package static let badCollapseId = APNsReason(rawValue: "BadCollapseId", status: 400)
    /// The device token in `:path` is malformed (or belongs to the other environment).
    package static let badDeviceToken = APNsReason(rawValue: "BadDeviceToken", status: 400)
    /// The `apns-expiration` value is not a Unix time in whole seconds.
    package static let badExpirationDate = APNsReason(rawValue: "BadExpirationDate", status: 400)
    /// The `apns-id` (or broadcast `apns-request-id`) is not a canonical UUID.
    package static let badMessageId = APNsReason(rawValue: "BadMessageId", status: 400)
    /// The `apns-priority` value is not one APNs accepts.
    package static let badPriority = APNsReason(rawValue: "BadPriority", status: 400)
    /// The `apns-topic` value is malformed.
    package static let badTopic = APNsReason(rawValue: "BadTopic", status: 400)
    /// The device token is valid but not registered for the topic.
    package static let deviceTokenNotForTopic = APNsReason(rawValue: "DeviceTokenNotForTopic", status: 400)
    /// A header appears more than once.
    package static let duplicateHeaders = APNsReason(rawValue: "DuplicateHeaders", status: 400)
    /// The connection sat idle for too long (sent in GOAWAY).
    package static let idleTimeout = APNsReason(rawValue: "IdleTimeout", status: 400)
    /// The `apns-push-type` value is not allowed here.
    package static let invalidPushType = APNsReason(rawValue: "InvalidPushType", status: 400)
    /// `:path` is `/3/device/` with no token.
    package static let missingDeviceToken = APNsReason(rawValue: "MissingDeviceToken", status: 400)
    /// `apns-topic` is required (token authentication) but absent.
    package static let missingTopic = APNsReason(rawValue: "MissingTopic", status: 400)
    /// The request has no body.
    package static let payloadEmpty = APNsReason(rawValue: "PayloadEmpty", status: 400)
    /// Pushing to this topic is not allowed (wrong suffix, or a bundle the key may not push to).
    package static let topicDisallowed = APNsReason(rawValue: "TopicDisallowed", status: 400)

    // MARK: - 400, broadcast and channel management

    /// Broadcast is not enabled for the app.
    package static let featureNotEnabled = APNsReason(rawValue: "FeatureNotEnabled", status: 400)
    /// `apns-channel-id` is required but absent.
    package static let missingChannelId = APNsReason(rawValue: "MissingChannelId", status: 400)
    /// `apns-channel-id` is malformed.
    package static let badChannelId = APNsReason(rawValue: "BadChannelId", status: 400)
    /// The channel does not exist for this app and environment.
    package static let channelNotRegistered = APNsReason(rawValue: "ChannelNotRegistered", status: 400)
    /// The request's parameters are invalid.
    package static let badRequestParams = APNsReason(rawValue: "BadRequestParams", status: 400)
    /// The request body is invalid. The relay also uses it for device pushes whose body is not a
    /// Live Activity JSON payload (Apple documents no reason for that case).
    package static let badRequestPayload = APNsReason(rawValue: "BadRequestPayload", status: 400)
    /// `apns-push-type` (or the channel body's `push-type`) is required but absent.
    package static let missingPushType = APNsReason(rawValue: "MissingPushType", status: 400)
    /// The channel limit (10,000 per app and environment) is reached.
    package static let cannotCreateChannelConfig = APNsReason(rawValue: "CannotCreateChannelConfig", status: 400)
    /// Not in Apple's tables; reported by a third party for a missing or invalid
    /// `message-storage-policy` when creating a channel. UNCERTAIN (apns-facts §3).
    package static let missingChannelQueueSize = APNsReason(rawValue: "MissingChannelQueueSize", status: 400)

    // MARK: - 403

    /// The client certificate is invalid.
    package static let badCertificate = APNsReason(rawValue: "BadCertificate", status: 403)
    /// The client certificate is for the other environment.
    package static let badCertificateEnvironment = APNsReason(rawValue: "BadCertificateEnvironment", status: 403)
    /// The provider token's `iat` is more than an hour old.
    package static let expiredProviderToken = APNsReason(rawValue: "ExpiredProviderToken", status: 403)
    /// The action is not allowed.
    package static let forbidden = APNsReason(rawValue: "Forbidden", status: 403)
    /// The provider token is malformed, unknown or its signature does not verify.
    package static let invalidProviderToken = APNsReason(rawValue: "InvalidProviderToken", status: 403)
    /// No certificate and no (or an empty) `authorization` header.
    package static let missingProviderToken = APNsReason(rawValue: "MissingProviderToken", status: 403)
    /// The token's key is unrelated to the key used first on this connection.
    package static let unrelatedKeyIdInToken = APNsReason(rawValue: "UnrelatedKeyIdInToken", status: 403)
    /// The token's key is not valid for this environment (newer Apple table only).
    package static let badEnvironmentKeyIdInToken = APNsReason(rawValue: "BadEnvironmentKeyIdInToken", status: 403)
    /// Broadcast: the certificate or token does not match the bundle ID in the path.
    package static let topicMismatch = APNsReason(rawValue: "TopicMismatch", status: 403)

    // MARK: - 404, 405, 410, 413, 429

    /// `:path` is not a provider API path.
    package static let badPath = APNsReason(rawValue: "BadPath", status: 404)
    /// `:method` is not allowed on this path.
    package static let methodNotAllowed = APNsReason(rawValue: "MethodNotAllowed", status: 405)
    /// The device token has expired.
    package static let expiredToken = APNsReason(rawValue: "ExpiredToken", status: 410)
    /// The device token is no longer active for the topic (comes with a timestamp).
    package static let unregistered = APNsReason(rawValue: "Unregistered", status: 410)
    /// The body is larger than the limit (4096 bytes, broadcast 5120).
    package static let payloadTooLarge = APNsReason(rawValue: "PayloadTooLarge", status: 413)
    /// The provider token changed more than once in 20 minutes on one connection.
    package static let tooManyProviderTokenUpdates = APNsReason(rawValue: "TooManyProviderTokenUpdates", status: 429)
    /// Too many requests in a row to one device token.
    package static let tooManyRequests = APNsReason(rawValue: "TooManyRequests", status: 429)

    // MARK: - 5xx

    /// An internal server error.
    package static let internalServerError = APNsReason(rawValue: "InternalServerError", status: 500)
    /// The service is unavailable (device pushes).
    package static let serviceUnavailable = APNsReason(rawValue: "ServiceUnavailable", status: 503)
    /// The service is unavailable, spelled with a space as in Apple's broadcast error table.
    package static let serviceUnavailableBroadcast = APNsReason(rawValue: "Service Unavailable", status: 503)
    /// The server is shutting down.
    package static let shutdown = APNsReason(rawValue: "Shutdown", status: 503)

    /// Every reason Apple documents (plus `MissingChannelQueueSize`), for tables and tests.
    package static let allKnown: [APNsReason] = [
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
}
