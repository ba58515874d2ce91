public import RelayJSON

/// The checks for channel management, in order; the first failure answers:
///
/// 1. The path is `/1/apps/<bundleId>/channels` or `/1/apps/<bundleId>/all-channels`, else
///    `404 BadPath`; a bundle ID with a push-type suffix is `400 TopicDisallowed`.
/// 2. The method fits the path (`POST`, `GET`, `DELETE` on `channels`; `GET` on `all-channels`),
///    else `405 MethodNotAllowed`. The path comes first here because the allowed methods depend
///    on it.
/// 3. **Authorization (the server)**: the `authorize` closure, as for broadcasts.
/// 4. No header appears twice (`DuplicateHeaders`); `apns-request-id` is a UUID (`BadMessageId`).
/// 5. Read and delete: `apns-channel-id` is present (`MissingChannelId`) and base64
///    (`BadChannelId`).
/// 6. Create: the body is present (`PayloadEmpty`), at most 1024 bytes (`413 PayloadTooLarge`) and
///    a JSON object (`BadRequestPayload`); `message-storage-policy` is 0 or 1, else
///    `MissingChannelQueueSize` (not in Apple's table but reported for this case; UNCERTAIN);
///    `push-type` is present (`MissingPushType`) and `LiveActivity` in any letter case
///    (`InvalidPushType`: "only allowed value is LiveActivity").
/// 7. **The store (the server, after this)**: creating past 10,000 channels is
///    `CannotCreateChannelConfig` (`BroadcastChannel.checkCapacity`); reading or deleting an
///    unknown channel is `ChannelNotRegistered` (`BroadcastChannel.notRegistered`).
extension ChannelManagementRequest {
    /// Largest create body, in bytes; the real one is about 60.
    package static let maxBodyBytes = 1024

    /// Paths of channel management.
    static let pathPrefix = "/1/apps/"
    static let channelsSuffix = "/channels"
    static let allChannelsSuffix = "/all-channels"

    /// Runs every check in order. `authorize` gets the `authorization` header and the bundle ID.
    public static func validate(
        method: String, path: String, headers: APNsHeaderFields, body: [UInt8]?, parseJSON: APNsBodyParser,
        authorize: (_ authorization: String?, _ bundleID: String) -> APNsError?
    ) -> Result<ChannelManagementRequest, APNsError> {
        do throws(APNsError) {
            let (bundleID, isAllChannels) = try checkRoute(method: method, path: path).get()
            if let error = authorize(headers[APNsHeaderName.authorization], bundleID) { throw error }
            if let error = headers.checkDuplicates() { throw error }
            var requestID: APNsMessageID?
            if let value = headers[APNsHeaderName.requestID] {
                requestID = try APNsMessageID.parse(value, header: "apns-request-id").get()
            }
            let operation: Operation
            switch (isAllChannels, method) {
            case (true, _): operation = .listAll
            case (false, "POST"): operation = .create(try storagePolicy(body, parseJSON: parseJSON))
            case (false, "GET"):
                operation = .read(try BroadcastChannelID.parse(headers[APNsHeaderName.channelID]).get())
            case (false, _):  // DELETE, the only other method checkRoute lets through
                operation = .delete(try BroadcastChannelID.parse(headers[APNsHeaderName.channelID]).get())
            }
            return .success(ChannelManagementRequest(bundleID: bundleID, operation: operation, requestID: requestID))
        } catch {
            return .failure(error)
        }
    }

    /// Checks 1–2; the bundle ID and whether the path is `all-channels`.
    package static func checkRoute(method: String, path: String) -> Result<
        (bundleID: String, allChannels: Bool), APNsError
    > {
        let allowed: Set<String>
        let segment: String
        let allChannels: Bool
        if let bundle = APNsAppPath.segment(of: path, prefix: pathPrefix, suffix: channelsSuffix) {
            (segment, allowed, allChannels) = (bundle, ["POST", "GET", "DELETE"], false)
        } else if let bundle = APNsAppPath.segment(of: path, prefix: pathPrefix, suffix: allChannelsSuffix) {
            (segment, allowed, allChannels) = (bundle, ["GET"], true)
        } else {
            return .failure(
                APNsError(
                    .badPath,
                    "\(APNsASCII.quoted(path)) is not /1/apps/<bundleId>/channels or /1/apps/<bundleId>/all-channels"))
        }
        let bundleID: String
        switch APNsAppPath.checkBundleID(segment, path: path) {
        case .success(let value): bundleID = value
        case .failure(let error): return .failure(error)
        }
        guard allowed.contains(method) else {
            return .failure(
                APNsError(
                    .methodNotAllowed,
                    "\(APNsASCII.quoted(method)) is not allowed on this path; use \(allowed.sorted().joined(separator: ", "))"
                ))
        }
        return .success((bundleID, allChannels))
    }

    /// Reads a create body.
    private static func storagePolicy(_ body: [UInt8]?, parseJSON: APNsBodyParser) throws(APNsError)
        -> MessageStoragePolicy
    {
        guard let body, !body.isEmpty else {
            throw APNsError(
                .payloadEmpty, "send {\"message-storage-policy\": 0 or 1, \"push-type\": \"LiveActivity\"}")
        }
        guard body.count <= maxBodyBytes else {
            throw APNsError(.payloadTooLarge, "the body is \(body.count) bytes; the limit is \(maxBodyBytes)")
        }
        let json: JSONValue
        do {
            json = try parseJSON(body)
        } catch {
            throw APNsError(.badRequestPayload, "the body is not valid JSON: \(error)")
        }
        guard case .object(let members) = json else {
            throw APNsError(.badRequestPayload, "the body must be a JSON object, not \(json.typeName)")
        }
        guard let policy = members[BroadcastChannel.Key.storagePolicy].flatMap(MessageStoragePolicy.init(creating:))
        else {
            throw APNsError(
                .missingChannelQueueSize,
                "message-storage-policy must be 0 (no message stored) or 1 (most recent stored)")
        }
        guard let pushType = members[BroadcastChannel.Key.pushType] else {
            throw APNsError(.missingPushType, "push-type is required; send \"LiveActivity\"")
        }
        guard case .string(let text) = pushType, APNsASCII.lowercased(text) == "liveactivity" else {
            throw APNsError(.invalidPushType, "push-type must be \"LiveActivity\"")
        }
        return policy
    }
}
