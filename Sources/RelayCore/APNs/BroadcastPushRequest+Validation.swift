public import RelayJSON

/// The checks for `POST /4/broadcasts/apps/<bundleId>`, in order; the first failure answers:
///
/// 1. `:method` is `POST`, else `405 MethodNotAllowed`.
/// 2. `:path` is `/4/broadcasts/apps/<bundleId>`, else `404 BadPath`; a bundle ID with a push-type
///    suffix is `400 TopicDisallowed`.
/// 3. **Authorization (the server)**: the provider token and whether its key may use this bundle
///    ID — the `authorize` closure (`MissingProviderToken`, `InvalidProviderToken`,
///    `ExpiredProviderToken`, `TooManyProviderTokenUpdates`, `TopicMismatch`, `FeatureNotEnabled`).
/// 4. No header appears twice, else `400 DuplicateHeaders` (Apple's broadcast table does not list
///    it; the relay borrows the device-push reason rather than guess which copy counts).
/// 5. `apns-channel-id` is present (`MissingChannelId`) and base64 (`BadChannelId`).
/// 6. `apns-push-type` is present (`MissingPushType`) and `liveactivity` in any letter case
///    (`InvalidPushType`; Apple's documents disagree on the casing).
/// 7. `apns-request-id` (and `apns-id`, which Apple's sample also shows) is a UUID, else
///    `BadMessageId`.
/// 8. `apns-expiration`, when present, is whole Unix seconds, else `BadExpirationDate`. Apple's
///    reference marks it required but Apple's own curl example omits it, so the relay accepts
///    its absence.
/// 9. `apns-priority` is present and `10`, `5` or `1`, else `BadPriority` (Apple requires it and
///    has no separate "missing" reason).
/// 10. **The store**: the channel exists for the app — the `storagePolicy` closure, nil meaning
///     `ChannelNotRegistered`.
/// 11. A nonzero `apns-expiration` on a no-message-stored (policy 0) channel is `BadExpirationDate`.
/// 12. The body is not empty (`PayloadEmpty`), at most 5120 bytes (`413 PayloadTooLarge`), a Live
///     Activity payload (`BadRequestPayload`), and not a `start` — "You can't use broadcast push
///     notifications to start a Live Activity" (the relay answers `BadRequestPayload`; Apple does
///     not document the reason).
/// This order follows the validation order of APNSwift's broadcast test server where Apple is
/// silent (apns-facts §3).
extension BroadcastPushRequest {
    /// Largest broadcast body, in bytes.
    package static let maxPayloadBytes = 5120

    /// The path prefix of broadcasts.
    public static let pathPrefix = "/4/broadcasts/apps/"

    /// Runs every check in order. `authorize` gets the `authorization` header and the bundle ID;
    /// `storagePolicy` returns the channel's policy, or nil when the app has no such channel.
    public static func validate(
        method: String, path: String, headers: APNsHeaderFields, body: [UInt8]?, parseJSON: APNsBodyParser,
        authorize: (_ authorization: String?, _ bundleID: String) -> APNsError?,
        storagePolicy: (_ channel: BroadcastChannelID, _ bundleID: String) -> MessageStoragePolicy?
    ) -> Result<BroadcastPushRequest, APNsError> {
        do throws(APNsError) {
            let bundleID = try checkRoute(method: method, path: path).get()
            if let error = authorize(headers[APNsHeaderName.authorization], bundleID) { throw error }
            if let error = headers.checkDuplicates() { throw error }
            let channelID = try BroadcastChannelID.parse(headers[APNsHeaderName.channelID]).get()

            guard let pushTypeValue = headers[APNsHeaderName.pushType] else {
                throw APNsError(.missingPushType, "apns-push-type is required on broadcasts; send 'liveactivity'")
            }
            let pushType = APNsPushType(rawValue: pushTypeValue)
            guard pushType.isLiveActivityIgnoringCase else {
                throw APNsError(
                    .invalidPushType, "apns-push-type \(APNsASCII.quoted(pushTypeValue)) is not 'liveactivity'")
            }

            var requestID: APNsMessageID?
            if let value = headers[APNsHeaderName.requestID] {
                requestID = try APNsMessageID.parse(value, header: "apns-request-id").get()
            }
            if let value = headers[APNsHeaderName.id] { _ = try APNsMessageID.parse(value).get() }

            var expiration: APNsExpiration?
            if let value = headers[APNsHeaderName.expiration] { expiration = try APNsExpiration.parse(value).get() }

            guard let priorityValue = headers[APNsHeaderName.priority] else {
                throw APNsError(.badPriority, "apns-priority is required on broadcasts: 10, 5 or 1")
            }
            guard let priority = APNsPriority(header: priorityValue) else {
                throw APNsError(.badPriority, "apns-priority \(APNsASCII.quoted(priorityValue)) is not 10, 5 or 1")
            }

            guard let policy = storagePolicy(channelID, bundleID) else {
                throw BroadcastChannel.notRegistered(channelID, bundleID: bundleID)
            }
            if policy == .noMessageStored, let expiration, !expiration.isImmediate {
                throw APNsError(
                    .badExpirationDate,
                    "apns-expiration \(expiration) on a channel that stores no messages (policy 0); send 0 or omit it")
            }

            let payload = try APNsPayloadBody.decode(body, limit: maxPayloadBytes, parseJSON: parseJSON).get()
            if payload.event.isStart {
                throw APNsError(
                    .badRequestPayload,
                    "broadcasts cannot start a Live Activity; start it with a push-to-start token and "
                        + "input-push-channel")
            }
            return .success(
                BroadcastPushRequest(
                    bundleID: bundleID, channelID: channelID, storagePolicy: policy, pushTypeHeader: pushType,
                    priority: priority, expiration: expiration, requestID: requestID, payload: payload))
        } catch {
            return .failure(error)
        }
    }

    /// Checks 1–2: method and path; the bundle ID on success.
    package static func checkRoute(method: String, path: String) -> Result<String, APNsError> {
        guard method == "POST" else {
            return .failure(
                APNsError(.methodNotAllowed, "\(APNsASCII.quoted(method)) is not allowed; broadcasts are POST"))
        }
        guard let bundleID = APNsAppPath.segment(of: path, prefix: pathPrefix, suffix: "") else {
            return .failure(APNsError(.badPath, "\(APNsASCII.quoted(path)) is not /4/broadcasts/apps/<bundleId>"))
        }
        return APNsAppPath.checkBundleID(bundleID, path: path)
    }
}
