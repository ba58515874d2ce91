import RelayCore
import RelayHTTP

// MARK: - /1/apps/{bundleId}/channels and /1/apps/{bundleId}/all-channels

extension ProviderRoutes {
    /// Channel management: `ChannelManagementRequest.validate` (with the provider token and the
    /// key's bundle IDs as its `authorize` step), then the emulator's channel store. Creating and
    /// deleting commit before the answer; reading and listing do not write.
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
        switch checked.operation {
        case .create(let policy):
            service.perform(
                { emulator, now in emulator.createChannel(bundleId: bundleID, policy: policy, at: now) },
                completion: {
                    outcome in
                    switch outcome {
                    case .success(.success(let channel)):
                        let response = APNsResponse.success(
                            201, requestID: requestID, extra: [("apns-channel-id", channel.id)])
                        finish(.success(response), "create", channel.id)
                    case .success(.failure(let error)):
                        finish(.failure(error), "create", nil)
                    case .failure:
                        finish(
                            .failure(APNsError(.internalServerError, "the channel could not be stored")), "create", nil)
                    }
                })
        case .read(let id):
            let found = service.read { $0.channel(id.rawValue, bundleId: bundleID) }
            finish(
                found.map { APNsResponse.success(200, requestID: requestID, body: $0.apnsJSON) }, "read", id.rawValue)
        case .delete(let id):
            service.perform(
                { emulator, now in emulator.deleteChannel(id.rawValue, bundleId: bundleID, at: now) },
                completion: {
                    outcome in
                    switch outcome {
                    case .success(.success):
                        finish(.success(APNsResponse.success(204, requestID: requestID)), "delete", id.rawValue)
                    case .success(.failure(let error)):
                        finish(.failure(error), "delete", id.rawValue)
                    case .failure:
                        finish(
                            .failure(APNsError(.internalServerError, "the deletion could not be stored")), "delete",
                            id.rawValue)
                    }
                })
        case .listAll:
            let ids = service.read { $0.channelIDs(bundleId: bundleID) }
            let body = BroadcastChannel.listBody(ids.map { BroadcastChannelID(rawValue: $0) })
            finish(.success(APNsResponse.success(200, requestID: requestID, body: body)), "list", nil)
        }
    }
}
