import RelayCore
import RelayHTTP
import RelayJSON

// MARK: - POST /4/broadcasts/apps/{bundleId}

extension ProviderRoutes {
    /// A broadcast push: `BroadcastPushRequest.validate` (provider token and key's bundle IDs as
    /// its `authorize` step, the channel's policy as its `storagePolicy` step), then delivery
    /// to the channel's subscribers or a refusal record, committed before the answer: `200` with
    /// `apns-request-id` and `apns-unique-id`, or `{"reason": ...}` with `apns-request-id`.
    func handleBroadcast(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        let http = request.request
        let headers = Self.fields(http.headers)
        let context = request.context
        let requestID = Self.identifier("apns-request-id", in: headers)
        var token: ProviderToken?
        var parsed: JSONValue?
        let limit = BroadcastPushRequest.maxPayloadBytes
        let body = Self.body(of: request, limit: limit)
        let validate:
            @Sendable (
                _ parseJSON: APNsBodyParser, _ authorize: (String?, String) -> APNsError?,
                _ storagePolicy: (BroadcastChannelID, String) -> MessageStoragePolicy?
            ) -> Result<BroadcastPushRequest, APNsError> = { parseJSON, authorize, storagePolicy in
                BroadcastPushRequest.validate(
                    method: http.method, path: http.path, headers: headers, body: body, parseJSON: parseJSON,
                    authorize: authorize, storagePolicy: storagePolicy
                ).mapError { Self.sizeAware($0, request: request, limit: limit) }
            }
        // SQLite mode answers the storage-policy step from the emulator. Cluster mode stops
        // there, reads the channel from Redis, and validates again from that step's answer (the
        // steps before it passed, authorization included).
        var asked: (channel: BroadcastChannelID, bundleID: String)?
        let first = validate(
            { bytes in
                let value = try ProviderAuthenticator.parseJSON(bytes)
                parsed = value
                return value
            },
            { authorization, bundleID in
                authorizeBroadcast(authorization, bundleID: bundleID, context: context, token: &token)
            },
            { channelID, bundleID in
                guard service.cluster == nil else {
                    asked = (channelID, bundleID)
                    return nil
                }
                let channel = service.read { try? $0.channel(channelID.rawValue, bundleId: bundleID).get() }
                return channel.map { MessageStoragePolicy(rawValue: $0.storagePolicy) }
            })

        var logged = PushContext(
            apnsId: requestID, uniqueId: Self.newID(),
            headers: ProviderRequestRecord.headers(
                http.headers, token: token, redactedAuthorization: request.context.redactedAuthorization(token)),
            payload: ProviderRequestRecord.payload(http.body, parsed: parsed, discarded: request.bodyTooLarge))
        logged.clockOffset = service.clock.virtualOffset
        let pushContext = logged
        let channelID = headers["apns-channel-id"].map { String($0.prefix(BroadcastChannelID.maxLength)) }
        let bundleID = try? BroadcastPushRequest.checkRoute(method: "POST", path: http.path).get()
        let streamID = request.streamID

        let deliver: @Sendable (Result<BroadcastPushRequest, APNsError>) -> Void = { validated in
            service.broadcast(validated, channelId: channelID, bundleId: bundleID, context: pushContext) { outcome in
                switch outcome {
                case .success(let result):
                    let response =
                        if let error = result.error {
                            APNsResponse.refused(error, idHeader: "apns-request-id", id: requestID)
                        } else {
                            APNsResponse.success(
                                200, requestID: requestID, extra: [("apns-unique-id", pushContext.uniqueId)])
                        }
                    Self.logPush(result.record, seq: result.seq, connection: context, streamID: streamID)
                    respond(.full(response))
                    count(status: result.status, reason: result.error?.reason, on: context)
                case .failure(let error):
                    RelayLog.error(
                        "broadcast.store",
                        ["conn": String(context.id), "requestId": requestID, "error": error.description])
                    respond(.full(APNsResponse.storeFailure(idHeader: "apns-request-id", id: requestID)))
                }
            }
        }
        guard let asked else { return deliver(first) }
        service.channel(asked.channel.rawValue, bundleId: asked.bundleID) { found in
            switch found {
            case .failure(let error):
                RelayLog.error(
                    "broadcast.store", ["conn": String(context.id), "requestId": requestID, "error": error.description])
                respond(.full(APNsResponse.storeFailure(idHeader: "apns-request-id", id: requestID)))
            case .success(let channel):
                let policy = (try? channel.get()).map { MessageStoragePolicy(rawValue: $0.storagePolicy) }
                deliver(validate(ProviderAuthenticator.parseJSON, { _, _ in nil }, { _, _ in policy }))
            }
        }
    }
}
