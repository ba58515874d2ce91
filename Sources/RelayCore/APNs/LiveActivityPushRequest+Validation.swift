public import RelayJSON

/// The provider API's checks for `POST /3/device/<token>`, in the order the relay applies them.
/// A request with several faults gets the reason of the first failing check:
///
/// 1. `:method` is `POST`, else `405 MethodNotAllowed`.
/// 2. `:path` is `/3/device/<token>`, else `404 BadPath`; an empty token is
///    `400 MissingDeviceToken`; a token that is not 16–200 bytes of hex is `400 BadDeviceToken`.
/// 3. **Authentication (the server)**: the `authorization` header's provider token —
///    `403 MissingProviderToken`, `InvalidProviderToken`, `ExpiredProviderToken`,
///    `UnrelatedKeyIdInToken`, `429 TooManyProviderTokenUpdates` (see `ProviderToken`,
///    `ProviderTokenChurn`). It needs libcrypto, so `validate` takes it as the `authenticate`
///    closure; a server driving the stages itself calls it between `checkRoute` and `checkHeaders`.
/// 4. No header appears twice, else `400 DuplicateHeaders`.
/// 5. `apns-push-type` is exactly `liveactivity`, else `400 InvalidPushType`. Omitting it is
///    allowed: Apple only "recommends" it on iOS; the type is inferred from the topic, with a hint.
/// 6. `apns-topic`: absent or empty is `400 MissingTopic` (token auth requires it); not a bundle ID
///    is `400 BadTopic`; without the `.push-type.liveactivity` suffix (or with another push
///    type's suffix) is `400 TopicDisallowed`.
/// 7. **Bundle authorization (the server)**: a bundle ID the token's key may not push to is
///    `400 TopicDisallowed` — the `authorizeBundle` closure.
/// 8. `apns-id` is a UUID (either letter case), else `400 BadMessageId`.
/// 9. `apns-priority` is `10`, `5` or `1`, else `400 BadPriority`; omitted means 10.
/// 10. `apns-expiration` is whole Unix seconds, else `400 BadExpirationDate`.
/// 11. `apns-collapse-id` is at most 64 bytes, else `400 BadCollapseId`.
/// 12. The body is not empty (`400 PayloadEmpty`) and at most 4096 bytes (`413 PayloadTooLarge`).
/// 13. The body is a Live Activity JSON payload, else `400 BadRequestPayload` (relay's choice;
///     see `LiveActivityPayload`).
///
/// Token state (`DeviceTokenNotForTopic`, `Unregistered`, `TooManyRequests`) is the device's
/// business and comes after all of these.
extension LiveActivityPushRequest {
    /// Largest device-push body, in bytes.
    package static let maxPayloadBytes = 4096

    /// The path prefix of device pushes.
    public static let pathPrefix = "/3/device/"

    /// `pathPrefix` as bytes.
    private static let pathPrefixBytes = Array(pathPrefix.utf8)

    /// Runs every check in order; `authenticate` receives the `authorization` header (nil when
    /// absent) after the path checks, `authorizeBundle` the bundle ID after the topic checks. Each
    /// returns nil to let the request through.
    public static func validate(
        method: String, path: String, headers: APNsHeaderFields, body: [UInt8]?, parseJSON: APNsBodyParser,
        authenticate: (_ authorization: String?) -> APNsError?, authorizeBundle: (_ bundleID: String) -> APNsError?
    ) -> Result<LiveActivityPushRequest, APNsError> {
        validate(
            method: method, path: path, headers: headers, authenticate: authenticate,
            authorizeBundle: authorizeBundle, checkBody: { checkBody(body, parseJSON: parseJSON) })
    }

    /// `validate(method:path:headers:body:parseJSON:authenticate:authorizeBundle:)` with RelayCore's
    /// own parser (`checkBody(_:)`): the same answers, for less work on the usual payload shape.
    public static func validate(
        method: String, path: String, headers: APNsHeaderFields, body: [UInt8]?,
        authenticate: (_ authorization: String?) -> APNsError?, authorizeBundle: (_ bundleID: String) -> APNsError?
    ) -> Result<LiveActivityPushRequest, APNsError> {
        validate(
            method: method, path: path, headers: headers, authenticate: authenticate,
            authorizeBundle: authorizeBundle, checkBody: { checkBody(body) })
    }

    /// The checks in order, with the body's checks (12–13) as `checkBody`.
    private static func validate(
        method: String, path: String, headers: APNsHeaderFields,
        authenticate: (_ authorization: String?) -> APNsError?, authorizeBundle: (_ bundleID: String) -> APNsError?,
        checkBody: () -> Result<LiveActivityPayload, APNsError>
    ) -> Result<LiveActivityPushRequest, APNsError> {
        let token: APNsDeviceToken
        switch checkRoute(method: method, path: path) {
        case .success(let value): token = value
        case .failure(let error): return .failure(error)
        }
        if let error = authenticate(headers[APNsHeaderName.authorization]) { return .failure(error) }
        let checkedHeaders: DevicePushHeaders
        switch checkHeaders(headers, authorizeBundle: authorizeBundle) {
        case .success(let value): checkedHeaders = value
        case .failure(let error): return .failure(error)
        }
        return checkBody().map {
            LiveActivityPushRequest(deviceToken: token, headers: checkedHeaders, payload: $0)
        }
    }

    /// Checks 1–2: method and path.
    package static func checkRoute(method: String, path: String) -> Result<APNsDeviceToken, APNsError> {
        guard method == "POST" else {
            return .failure(APNsError(.methodNotAllowed, "\(APNsASCII.quoted(method)) is not allowed; pushes are POST"))
        }
        guard APNsASCII.hasPrefix(path, pathPrefixBytes) else {
            return .failure(APNsError(.badPath, "\(APNsASCII.quoted(path)) is not /3/device/<token>"))
        }
        let tokenText = APNsASCII.slice(path, pathPrefixBytes.count..<path.utf8.count)
        return APNsDeviceToken.parse(tokenText)
    }

    /// Checks 4–11: the `apns-*` headers, with bundle authorization between topic and `apns-id`.
    package static func checkHeaders(
        _ headers: APNsHeaderFields, authorizeBundle: (_ bundleID: String) -> APNsError?
    ) -> Result<DevicePushHeaders, APNsError> {
        if let error = headers.checkDuplicates() { return .failure(error) }

        var pushType: APNsPushType?
        if let value = headers[APNsHeaderName.pushType] {
            pushType = APNsPushType(rawValue: value)
            guard pushType == .liveActivity else {
                return .failure(
                    APNsError(
                        .invalidPushType,
                        "apns-push-type \(APNsASCII.quoted(value)) is not accepted; this relay takes only 'liveactivity'"
                    ))
            }
        }

        guard let topicValue = headers[APNsHeaderName.topic] else {
            return .failure(
                APNsError(.missingTopic, "apns-topic is required; send <bundleID>\(APNsTopic.liveActivitySuffix)"))
        }
        let topic: APNsTopic
        let bundleID: String
        do throws(APNsError) {
            topic = try APNsTopic.parse(topicValue).get()
            bundleID = try topic.requireLiveActivityBundleID().get()
        } catch {
            return .failure(error)
        }
        if let error = authorizeBundle(bundleID) { return .failure(error) }

        var result = DevicePushHeaders(topic: topic, bundleID: bundleID, pushTypeHeader: pushType)
        do throws(APNsError) {
            if let value = headers[APNsHeaderName.id] { result.apnsID = try APNsMessageID.parse(value).get() }
            if let value = headers[APNsHeaderName.priority] {
                guard let priority = APNsPriority(header: value) else {
                    throw APNsError(.badPriority, "apns-priority \(APNsASCII.quoted(value)) is not 10, 5 or 1")
                }
                result.priorityHeader = priority
            }
            if let value = headers[APNsHeaderName.expiration] {
                result.expiration = try APNsExpiration.parse(value).get()
            }
            if let value = headers[APNsHeaderName.collapseID] {
                result.collapseID = try APNsCollapseID.parse(value).get()
            }
        } catch {
            return .failure(error)
        }
        return .success(result)
    }

    /// Checks 12–13: size, then JSON, then the Live Activity payload. `parseJSON` runs only on a body
    /// within the size limit.
    package static func checkBody(_ body: [UInt8]?, parseJSON: APNsBodyParser) -> Result<LiveActivityPayload, APNsError>
    {
        APNsPayloadBody.decode(body, limit: maxPayloadBytes, parseJSON: parseJSON)
    }

    /// Checks 12–13 with RelayCore's own parser, reading the usual payload shape member by member
    /// (`LiveActivityPayload.decode`). Answers exactly as `checkBody(_:parseJSON:)` with
    /// `JSONValue(parsing:)`; a `200` means the body is one valid JSON document.
    package static func checkBody(_ body: [UInt8]?) -> Result<LiveActivityPayload, APNsError> {
        APNsPayloadBody.decode(body, limit: maxPayloadBytes)
    }
}
