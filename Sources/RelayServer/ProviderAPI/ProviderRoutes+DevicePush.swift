import RelayCore
import RelayHTTP

// MARK: - POST /3/device/{token}

extension ProviderRoutes {
    /// A Live Activity push: RelayCore's checks in their documented order with the provider token
    /// between route and headers, then delivery to the emulated device (or, when a check failed,
    /// a refusal record), committed before the answer.
    func handleDevicePush(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        let http = request.request
        let headers = Self.fields(http.headers)
        var token: ProviderToken?
        let validated = validateDevicePush(request, headers: headers, token: &token)

        let apnsID = Self.identifier("apns-id", in: headers)
        // An accepted body was read as one valid JSON document: the log keeps its bytes.
        let payload: PushPayload =
            if case .success = validated {
                .json(http.body)
            } else {
                .value(ProviderRequestRecord.payload(http.body, parsed: nil, discarded: request.bodyTooLarge))
            }
        var logged = PushContext(
            apnsId: apnsID, uniqueId: Self.newID(),
            headers: ProviderRequestRecord.headers(
                headers, http: http.headers, token: token,
                redactedAuthorization: request.context.redactedAuthorization(token)),
            payload: payload)
        // What a refusal is filed under; an accepted push has its activity for both.
        logged.clockOffset = service.clock.virtualOffset
        let pushContext = logged
        let refusal: (token: String?, bundleID: String?)? =
            if case .failure = validated {
                (Self.deviceTokenText(path: http.path), Self.bundleID(topic: headers["apns-topic"]))
            } else {
                nil
            }
        let connection = request.context
        let streamID = request.streamID
        if case .success(let push) = validated {
            connection.providerPushes += 1
            if faults.appliesToPushes {
                let decision = faults.decide(
                    bundleId: push.bundleID, token: push.deviceToken.hex, connectionPushes: connection.providerPushes)
                if !decision.isEmpty {
                    injectFault(
                        decision, push: push, context: pushContext, connection: connection, streamID: streamID,
                        respond: respond)
                    return
                }
            }
        }

        // Cluster mode loads the device the token belongs to; a refusal before the token was
        // read belongs to none.
        let scope: StateScope =
            if case .success(let push) = validated { .token(push.deviceToken.hex) } else { .none }
        // A push-to-start onto a broadcast channel: cluster mode reads the channel for the command.
        let channel: JoinedChannel? =
            if case .success(let push) = validated, push.payload.event.isStart,
                let id = push.payload.inputPushChannel
            {
                JoinedChannel(id: id, bundleId: push.bundleID)
            } else {
                nil
            }
        service.perform(
            in: scope, joining: channel,
            { emulator, now -> PushResult in
                switch validated {
                case .success(let push):
                    return emulator.deliver(push, context: pushContext, at: now)
                case .failure(let error):
                    return emulator.recordRefusal(
                        error, token: refusal?.token, bundleId: refusal?.bundleID, context: pushContext, at: now)
                }
            },
            completion: { outcome in
                switch outcome {
                case .success(let result):
                    let response =
                        if let error = result.error {
                            APNsResponse.refused(error, idHeader: "apns-id", id: apnsID)
                        } else {
                            APNsResponse.accepted(apnsID: apnsID, uniqueID: pushContext.uniqueId)
                        }
                    Self.logPush(result.record, seq: result.seq, connection: connection, streamID: streamID)
                    respond(.full(response))
                    count(status: result.status, reason: result.error?.reason, on: connection)
                case .failure(let error):
                    RelayLog.error(
                        "push.store", ["conn": String(connection.id), "apnsId": apnsID, "error": error.description])
                    respond(.full(APNsResponse.storeFailure(idHeader: "apns-id", id: apnsID)))
                }
            })
    }

    /// A valid push that fault rules fired on: latency delays the answer of a push delivered as
    /// usual; an error answers instead of the device; GOAWAY refuses the stream and closes the
    /// connection; a reset drops it. Every one is logged before the answer (or the close).
    private func injectFault(
        _ decision: FaultPlan.Decision, push: LiveActivityPushRequest, context: PushContext,
        connection: ConnectionContext, streamID: UInt32, respond: @escaping @Sendable (ServerResponse) -> Void
    ) {
        let fault = decision.json
        var withFault = context
        withFault.fault = fault
        let pushContext = withFault
        let apnsID = context.apnsId
        let delay = decision.latencyMs / 1000
        // The answer (or close) waits for the latency rules on the connection's loop.
        let later: @Sendable (@escaping @Sendable () -> Void) -> Void = { work in
            if delay > 0, let runAfter = connection.runAfter { runAfter(delay, work) } else { work() }
        }
        service.perform(
            in: .token(push.deviceToken.hex),
            { emulator, now -> PushResult in
                switch decision.rule?.action {
                case .error(let status, let reason):
                    return emulator.recordInjected(
                        push, status: status, reason: reason, fault: fault, context: pushContext, at: now)
                case .goaway, .reset:
                    return emulator.recordInjected(
                        push, status: 0, reason: nil, fault: fault, context: pushContext, at: now)
                default:
                    return emulator.deliver(push, context: pushContext, at: now)
                }
            },
            completion: { outcome in
                switch outcome {
                case .success(let result):
                    Self.logPush(result.record, seq: result.seq, connection: connection, streamID: streamID)
                    later {
                        switch decision.rule?.action {
                        case .goaway(_, let reason):
                            connection.injectClose?(streamID, reason)
                        case .reset:
                            connection.injectClose?(streamID, nil)
                        default:
                            let response =
                                if let error = result.error {
                                    APNsResponse.refused(error, idHeader: "apns-id", id: apnsID)
                                } else {
                                    APNsResponse.accepted(apnsID: apnsID, uniqueID: context.uniqueId)
                                }
                            respond(.full(response))
                        }
                    }
                case .failure(let error):
                    RelayLog.error(
                        "push.store", ["conn": String(connection.id), "apnsId": apnsID, "error": error.description])
                    respond(.full(APNsResponse.storeFailure(idHeader: "apns-id", id: apnsID)))
                }
            })
    }

    /// Checks 1–13 of `LiveActivityPushRequest` (see its `+Validation`), driving the stages so
    /// that the verified token is kept for the push log.
    private func validateDevicePush(
        _ request: ServerRequest, headers: APNsHeaderFields, token: inout ProviderToken?
    ) -> Result<LiveActivityPushRequest, APNsError> {
        let http = request.request
        do throws(APNsError) {
            let deviceToken = try LiveActivityPushRequest.checkRoute(method: http.method, path: http.path).get()
            let verified = try authenticator.authenticate(headers["authorization"], context: request.context).get()
            token = verified
            let checked = try LiveActivityPushRequest.checkHeaders(headers) {
                bundleID in
                authenticator.authorize(verified, bundleID: bundleID, reason: .topicDisallowed)
            }.get()
            let limit = LiveActivityPushRequest.maxPayloadBytes
            let body = Self.body(of: request, limit: limit)
            let payloadResult = LiveActivityPushRequest.checkBody(body)
            let payload = try payloadResult.mapError { Self.sizeAware($0, request: request, limit: limit) }.get()
            return .success(LiveActivityPushRequest(deviceToken: deviceToken, headers: checked, payload: payload))
        } catch {
            return .failure(error)
        }
    }

    /// The token part of a `/3/device/` path as the push log files it (lowercase, at most 200
    /// characters), or nil for another path.
    static func deviceTokenText(path: String) -> String? {
        guard path.hasPrefix(LiveActivityPushRequest.pathPrefix) else { return nil }
        let text = path.utf8.dropFirst(LiveActivityPushRequest.pathPrefix.utf8.count).prefix(
            APNsDeviceToken.maxBytes * 2)
        return text.isEmpty ? nil : String(decoding: text, as: UTF8.self).lowercased()
    }

    /// The app an `apns-topic` names, suffix removed, for the log of a refused push.
    static func bundleID(topic: String?) -> String? {
        guard let topic, !topic.isEmpty, topic.utf8.count <= APNsTopic.maxLength else { return nil }
        return APNsTopic(rawValue: topic).liveActivityBundleID ?? topic
    }

    /// One line per push: ids to follow it (apns-id, apns-unique-id, activity, the sequence number
    /// of its `push.received` event), an 8-character token prefix and what happened.
    /// The push is counted in `RelayMetrics` by reason and outcome here too.
    static func logPush(_ record: PushRecord, seq: UInt64, connection: ConnectionContext, streamID: UInt32) {
        RelayMetrics.shared.countPush(reason: record.reason, outcome: record.outcome)
        RelayLog.log(.info, "push") { line in
            line.add("conn", UInt64(connection.id))
            line.add("stream", UInt64(streamID))
            line.add("apnsId", record.apnsId)
            line.add("uniqueId", record.uniqueId)
            if let channel = record.channelId {
                line.add("channel", ProviderRequestRecord.prefix(channel))
            } else {
                line.add("token", ProviderRequestRecord.prefix(record.token))
            }
            line.add("status", UInt64(clamping: record.status))
            line.add("reason", record.reason ?? "-")
            line.add("outcome", record.outcome.rawValue)
            line.add("activity", record.activityId ?? "-")
            line.add("seq", seq)
        }
    }
}
