package import RelayJSON

// MARK: - Provider pushes (what the phone does with an APNs push)

/// What the provider API knows about a push besides its validated content: the identifiers it
/// answers with and the raw headers and payload kept for the push log.
public struct PushContext: Sendable {
    package var apnsId: String
    package var uniqueId: String
    /// Request headers for the log, each a string (the caller redacts `authorization`).
    package var headers: LoggedHeaders
    /// The payload as received: its bytes when it was JSON, or a value (a string when it was not
    /// JSON, null when there was none).
    package var payload: PushPayload
    /// The injected fault (latency) that the answer waits for, for the record; nil without one.
    package var fault: JSONValue?

    /// How far the relay's virtual clock is ahead of real time (negative: behind); nil on the
    /// system clock. A push ignored as old says so, since a real backend's timestamps then look old.
    package var clockOffset: UnixSeconds?

    public init(apnsId: String, uniqueId: String, headers: LoggedHeaders, payload: PushPayload) {
        self.apnsId = apnsId
        self.uniqueId = uniqueId
        self.headers = headers
        self.payload = payload
    }

    /// A context whose payload is a value.
    package init(apnsId: String, uniqueId: String, headers: LoggedHeaders, payload: JSONValue) {
        self.init(apnsId: apnsId, uniqueId: uniqueId, headers: headers, payload: .value(payload))
    }
}

/// The provider API's answer to a push and the record it leaves.
public struct PushResult: Sendable {
    /// nil for `200`.
    package var error: APNsError?
    public var record: PushRecord
    /// The sequence number of the push's `push.received` event, for the log line.
    package var seq: UInt64 = 0

    /// The HTTP status to answer with.
    public var status: Int { error?.status ?? 200 }
}

extension DeviceEmulator {
    /// Delivers a validated live-activity push to the token it addresses, as the phone would,
    /// and logs it. APNs-level refusals that need device state come from here: unknown token
    /// (`BadDeviceToken`), another app's token (`DeviceTokenNotForTopic`), an ended activity
    /// (`410 Unregistered` with the end time), a burst to one token (`429 TooManyRequests`) and,
    /// in strict budget mode, an update over budget (`429 TooManyRequests`).
    public mutating func deliver(_ push: LiveActivityPushRequest, context: PushContext, at time: UnixSeconds)
        -> PushResult
    {
        let now = arrive(at: time)
        let token = push.deviceToken.hex
        var record = PushRecord(
            apnsId: context.apnsId, uniqueId: context.uniqueId, receivedAt: now, token: token,
            bundleId: push.bundleID, loggedHeaders: context.headers, loggedPayload: context.payload, outcome: .rejected)
        if let fault = context.fault { record.fault = fault }
        var hints = push.hints.map(\.note)
        let result: Result<PushOutcome, APNsError>
        var deviceId: String?
        guard let entry = tokens.index(forKey: push.deviceToken.key) else {
            result = .failure(
                APNsError(.badDeviceToken, "no Live Activity or push-to-start token \(token.prefix(16))… on this relay")
            )
            return finish(record, result: result, hints: hints, at: now)
        }
        switch tokens.values[entry].target {
        case .activity(let position):
            record.activityId = activities[position: position].id
            result = deliverToActivity(
                at: position, token: entry, push: push, hints: &hints, deviceId: &deviceId,
                clockOffset: context.clockOffset, at: now)
        case .pushToStart(let startDeviceId, let bundleId, let attributesType):
            result = deliverStart(
                deviceId: startDeviceId, bundleId: bundleId, attributesType: attributesType, token: entry, push: push,
                record: &record, hints: &hints, at: now)
        }
        return finish(record, result: result, hints: hints, deviceId: deviceId, at: now)
    }

    /// Logs a push the provider API refused before it reached a device (a malformed request, bad auth, ...).
    public mutating func recordRefusal(
        _ error: APNsError, token: String?, channelId: String? = nil, bundleId: String?, context: PushContext,
        at time: UnixSeconds
    ) -> PushResult {
        let now = arrive(at: time)
        let record = PushRecord(
            apnsId: context.apnsId, uniqueId: context.uniqueId, receivedAt: now, token: token, channelId: channelId,
            bundleId: bundleId, loggedHeaders: context.headers, loggedPayload: context.payload, outcome: .rejected)
        return finish(record, result: .failure(error), hints: [], at: now)
    }

    /// Completes the record, logs it and emits `push.received` (with `deviceId`, else the device of
    /// the record's activity, if it exists). Takes the record, so that its last use is a move.
    mutating func finish(
        _ record: consuming PushRecord, result: Result<PushOutcome, APNsError>, hints: [PushNote],
        deviceId: String? = nil,
        at now: UnixSeconds
    ) -> PushResult {
        var error: APNsError?
        switch result {
        case .success(let outcome):
            record.outcome = outcome
            record.status = 200
        case .failure(let failure):
            error = failure
            record.outcome = .rejected
            record.status = failure.status
            record.reason = failure.reason.rawValue
            record.setResponseBody(of: failure)
        }
        // The refusal's message first, then the hints; written out when the record is read.
        if let error {
            record.hintNotes = [error.note] + hints
        } else if !hints.isEmpty {
            record.hintNotes = hints
        }
        let deviceId = deviceId ?? record.activityId.flatMap { activities[$0]?.deviceId }
        let seq = nextSeq
        if error == nil, let deviceId, let name = devices[deviceId]?.name { record.deviceName = name }
        emit(RelayEvent(type: .pushReceived, at: now, push: copy record, deviceId: deviceId))
        return PushResult(error: error, record: record, seq: seq)
    }

    /// An update or end push to an activity's update token (at `token` in `tokens`), to the
    /// activity at `position` in `activities`, which it changes in place. Sets `deviceId` to the
    /// activity's device.
    mutating func deliverToActivity(
        at position: Int, token: Dictionary<TokenKey, TokenEntry>.Index, push: LiveActivityPushRequest,
        hints: inout [PushNote], deviceId: inout String?, clockOffset: UnixSeconds? = nil, at now: UnixSeconds
    ) -> Result<PushOutcome, APNsError> {
        let id = activities[position: position].id
        deviceId = activities[position: position].deviceId
        let bundleId = activities[position: position].bundleId
        guard bundleId == push.bundleID else {
            return .failure(
                APNsError(.deviceTokenNotForTopic, "the token belongs to \(bundleId), not \(push.bundleID)"))
        }
        if let endedAt = activities[position: position].endedAt {
            return .failure(
                APNsError(.unregistered, note: .activityEnded(id: id, at: endedAt), timestamp: endedAt))
        }
        if let refusal = admitBurst(token: token, at: now) { return .failure(refusal) }
        let payload = push.payload
        if let dropped = payload.issues.first(where: \.dropsPush) {
            hints.append(.text(dropped.message))
            return .success(payload.event.isStart || !payload.event.isKnown ? .ignored : .dropped)
        }
        if payload.event.isStart {
            hints.append("a start push to an activity's update token is ignored; starts go to push-to-start tokens")
            return .success(.ignored)
        }
        // The fingerprints were taken when each content state was read; only when they differ is
        // the previous content state (cold in memory here) read to say how.
        if let content = payload.contentState,
            payload.contentStateShape != activities[position: position].contentStateShape
        {
            let previous = activities[position: position].contentState.objectValue ?? [:]
            let differences = ContentStateShape.differences(previous: previous, new: content)
            if !differences.isEmpty { hints.append(APNsHint.contentStateShapeChanged(differences).note) }
        }
        let rules = rules
        if payload.event.isEnd {
            let outcome = activities[position: position].end(
                content: payload.contentState.map(JSONValue.object), contentShape: payload.contentStateShape,
                dismissalPolicy: .fromPush(dismissalDate: payload.dismissalDate, at: now),
                timestamp: payload.timestamp, rules: rules, at: now)
            switch outcome {
            case .ended:
                recordEnd(of: activities[position: position], at: now, cause: "push")
                return .success(.applied)
            case .ignoredStale(let last):
                hints.append(
                    .text(
                        "timestamp \(Self.text(payload.timestamp)) is older than the last applied update"
                            + " (\(Self.text(last)))" + Self.clockNote(clockOffset)))
                return .success(.ignored)
            case .rejectedEnded(let endedAt):
                return .failure(
                    APNsError(.unregistered, String.joined("activity ", id, " already ended"), timestamp: endedAt))
            case .rejectedTooLarge(let bytes, let limit):
                return Self.dropped(tooLarge: bytes, limit: limit, hints: &hints)
            case .rejectedInvalid(let field):
                return Self.dropped(invalid: field, hints: &hints)
            }
        }
        // The activity's budget follows its app's setting (`updateAppSettings` resizes running
        // activities), so the push needs no lookup of the device.
        let frequentPushes = activities[position: position].updateBudget.frequentPushesEnabled
        let outcome = activities[position: position].update(
            push.update, source: .push(priority: push.priority.rawValue),
            frequentPushesEnabled: frequentPushes, rules: rules, at: now)
        return pushOutcome(
            of: outcome, activity: saveActivity(at: position), hints: &hints, clockOffset: clockOffset, at: now)
    }

    /// Maps an update's outcome to the push outcome, recording `activity.updated` when it showed.
    mutating func pushOutcome(
        of outcome: ActivityUpdateOutcome, activity snapshot: ActivitySnapshot, hints: inout [PushNote],
        clockOffset: UnixSeconds? = nil, at now: UnixSeconds
    ) -> Result<PushOutcome, APNsError> {
        switch outcome {
        case .applied:
            emit(.activityUpdated, activity: snapshot, at: now, extra: Cause.push)
            return .success(.applied)
        case .deferred(let until, let reason), .coalesced(let until, let reason):
            let replacing = if case .coalesced = outcome { true } else { false }
            noteFutureChanged(of: snapshot.deviceId)
            hints.append(.held(forBudget: reason == .budget, until: until, replacing: replacing))
            return .success(.deferred)
        case .refusedOverBudget(let retryAt):
            return .failure(
                APNsError(
                    .tooManyRequests,
                    "update budget spent (strict mode); next update allowed at \(UTCDate.format(retryAt))"))
        case .ignoredStale(let last):
            hints.append(
                .text(
                    "timestamp is older than the last applied update (\(Self.text(last))); the device ignores it"
                        + Self.clockNote(clockOffset)))
            return .success(.ignored)
        case .rejectedEnded(let endedAt):
            return .failure(
                APNsError(
                    .unregistered, String.joined("activity ", snapshot.id, " has ended"), timestamp: endedAt))
        case .rejectedTooLarge(let bytes, let limit):
            return Self.dropped(tooLarge: bytes, limit: limit, hints: &hints)
        case .rejectedInvalid(let field):
            return Self.dropped(invalid: field, hints: &hints)
        }
    }

    /// The device drops content over its size limit.
    static func dropped(tooLarge bytes: Int, limit: Int, hints: inout [PushNote]) -> Result<PushOutcome, APNsError> {
        hints.append("attributes and content-state are \(bytes) bytes; the device limit is \(limit)")
        return .success(.dropped)
    }

    /// The device drops a push with a number it cannot use.
    static func dropped(invalid field: String, hints: inout [PushNote]) -> Result<PushOutcome, APNsError> {
        hints.append("\(field) is not a finite number")
        return .success(.dropped)
    }

    /// A push to a push-to-start token.
    mutating func deliverStart(
        deviceId: String, bundleId: String, attributesType: String, token: Dictionary<TokenKey, TokenEntry>.Index,
        push: LiveActivityPushRequest, record: inout PushRecord, hints: inout [PushNote], at now: UnixSeconds
    ) -> Result<PushOutcome, APNsError> {
        guard bundleId == push.bundleID else {
            return .failure(
                APNsError(
                    .deviceTokenNotForTopic, "the push-to-start token belongs to \(bundleId), not \(push.bundleID)"))
        }
        if let refusal = admitBurst(token: token, at: now) { return .failure(refusal) }
        let payload = push.payload
        guard payload.event.isStart else {
            hints.append("push-to-start tokens only start activities; '\(payload.event.rawValue)' is ignored")
            return .success(.ignored)
        }
        if let dropped = payload.issues.first(where: \.dropsPush) {
            hints.append(.text(dropped.message))
            return .success(.dropped)
        }
        guard var device = devices[deviceId] else {
            return .failure(APNsError(.badDeviceToken, "the token's device \(deviceId) no longer exists"))
        }
        let settings = device.settings(bundleId)
        guard settings.liveActivitiesEnabled else {
            hints.append("Live Activities are turned off for \(bundleId) on this device; nothing starts")
            return .success(.dropped)
        }
        guard payload.attributesType == attributesType else {
            hints.append(
                "attributes-type '\(payload.attributesType ?? "")' does not match the token's '\(attributesType)'")
            return .success(.dropped)
        }
        if let channelId = payload.inputPushChannel {
            guard let channel = channels[channelId], channel.bundleId == bundleId else {
                hints.append(
                    "input-push-channel '\(channelId)' is not a channel of \(bundleId); the activity does not start")
                return .success(.dropped)
            }
        }
        var budget = device.pushToStartBudgets[bundleId] ?? PushToStartBudget(rules: rules, at: now)
        guard budget.take(rules: rules, at: now) else {
            hints.append(
                "Push-to-start budget exceeded; not starting activity (next start allowed at \(UTCDate.format(budget.availableAt(now))))"
            )
            device.pushToStartBudgets[bundleId] = budget
            save(device)
            pushToStartBudgetExhaustions += 1
            return .success(.dropped)
        }
        device.pushToStartBudgets[bundleId] = budget
        save(device)
        let content = push.update
        do {
            let activity = try begin(
                deviceId: deviceId, bundleId: bundleId, attributesType: attributesType,
                attributes: .object(payload.attributes ?? [:]), content: content, wantsToken: payload.inputPushToken,
                channelId: payload.inputPushChannel, settings: settings, at: now, cause: "pushToStart")
            record.activityId = activity.id
            return .success(.started)
        } catch {
            hints.append(.text(error.message))
            return .success(.dropped)
        }
    }

    /// `429 TooManyRequests` when the token at `token` in `tokens` has had too many pushes in a
    /// burst. The index comes from the push's lookup of its token; `tokens` has not changed since.
    mutating func admitBurst(token: Dictionary<TokenKey, TokenEntry>.Index, at now: UnixSeconds) -> APNsError? {
        let rules = rules
        guard tokens.values[token].burst.admit(rules: rules, at: now) else {
            let retryAt = tokens.values[token].burst.availableAt(now)
            return APNsError(
                .tooManyRequests, "too many pushes to this token in a burst; retry after \(UTCDate.format(retryAt))")
        }
        return nil
    }

    /// A time or number as the hints print it.
    static func text(_ value: Double?) -> String {
        value?.plainText ?? "none"
    }

    /// For a push ignored as old: nothing on the system clock; on a virtual clock, that it is
    /// virtual and how far it is from real time, since a timestamp from a real clock lags it.
    static func clockNote(_ offset: UnixSeconds?) -> String {
        guard let offset else { return "" }
        let side = offset >= 0 ? "ahead of" : "behind"
        return "; the relay's clock is virtual, \(clockSpan(offset)) \(side) real time (a timestamp from a real"
            + " clock is compared with it; GET /v1/clock shows it)"
    }

    /// `seconds` (its magnitude) as hours, minutes and seconds: `12h 0m 3s`.
    package static func clockSpan(_ seconds: UnixSeconds) -> String {
        guard seconds.isFinite else { return "\(seconds)s" }
        let whole = Int(min(abs(seconds), 1e15).rounded())
        return "\(whole / 3600)h \(whole % 3600 / 60)m \(whole % 60)s"
    }
}
