import RelayCore
import RelayHTTP
import RelayStore

// MARK: - /1/apps/{bundleId}/channels and /1/apps/{bundleId}/all-channels

extension ProviderRoutes {
    /// Channel management: `ChannelManagementRequest.validate` (with the provider token and the
    /// key's bundle IDs as its `authorize` step), then the channels of `RelayService+Channels`
    /// (the emulator's, or Redis's in cluster mode). Creating and deleting commit before the
    /// answer; reading and listing do not write.
    func handleChannel(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        let http = request.request
        let headers = Self.fields(http.headers)
        let context = request.context
        let requestID = Self.identifier("apns-request-id", in: headers)
        var token: ProviderToken?
        let limit = ChannelManagementRequest.maxBodyBytes
        let validated = ChannelManagementRequest.validate(
            method: http.method, path: http.path, headers: headers, body: Self.body(of: request, limit: limit),
            parseJSON: ProviderAuthenticator.parseJSON
        ) { authorization, bundleID in
            authorizeBroadcast(authorization, bundleID: bundleID, context: context, token: &token)
        }.mapError { Self.sizeAware($0, request: request, limit: limit) }

        let finish: @Sendable (Result<HTTPResponse, APNsError>, String, String?) -> Void = {
            result, operation, channel in
            let response: HTTPResponse
            switch result {
            case .success(let success): response = success
            case .failure(let error): response = APNsResponse.refused(error, idHeader: "apns-request-id", id: requestID)
            }
            let reason: APNsReason? = if case .failure(let error) = result { error.reason } else { nil }
            RelayLog.info(
                "channel",
                [
                    "conn": String(context.id), "stream": String(request.streamID), "requestId": requestID,
                    "op": operation, "channel": ProviderRequestRecord.prefix(channel),
                    "status": String(response.status),
                    "reason": reason?.rawValue ?? "-",
                ])
            respond(.full(response))
            count(status: response.status, reason: reason, on: context)
        }

        let checked: ChannelManagementRequest
        switch validated {
        case .failure(let error):
            finish(.failure(error), "refused", nil)
            return
        case .success(let value):
            checked = value
        }
        let bundleID = checked.bundleID
        let stored: @Sendable (Result<Result<HTTPResponse, APNsError>, StoreError>, String, String?) -> Void = {
            outcome, operation, channel in
            switch outcome {
            case .success(let result): finish(result, operation, channel)
            case .failure(let error):
                RelayLog.error(
                    "channel.store", ["conn": String(context.id), "requestId": requestID, "error": error.description])
                let what =
                    switch operation {
                    case "create": "the channel could not be stored"
                    case "delete": "the deletion could not be stored"
                    default: "the channels could not be read"
                    }
                finish(.failure(APNsError(.internalServerError, what)), operation, channel)
            }
        }
        switch checked.operation {
        case .create(let policy):
            service.createChannel(bundleId: bundleID, policy: policy) { outcome in
                let channel = try? outcome.get().get()
                stored(
                    outcome.map { created in
                        created.map {
                            APNsResponse.success(201, requestID: requestID, extra: [("apns-channel-id", $0.id)])
                        }
                    }, "create", channel?.id)
            }
        case .read(let id):
            service.channel(id.rawValue, bundleId: bundleID) { outcome in
                stored(
                    outcome.map { found in
                        found.map { APNsResponse.success(200, requestID: requestID, body: $0.apnsJSON) }
                    }, "read", id.rawValue)
            }
        case .delete(let id):
            service.deleteChannel(id.rawValue, bundleId: bundleID) { outcome in
                stored(
                    outcome.map { deleted in deleted.map { APNsResponse.success(204, requestID: requestID) } },
                    "delete", id.rawValue)
            }
        case .listAll:
            service.channelIDs(bundleId: bundleID) { outcome in
                stored(
                    outcome.map { ids -> Result<HTTPResponse, APNsError> in
                        let body = BroadcastChannel.listBody(ids.map { BroadcastChannelID(rawValue: $0) })
                        return .success(APNsResponse.success(200, requestID: requestID, body: body))
                    }, "list", nil)
            }
        }
    }
}
