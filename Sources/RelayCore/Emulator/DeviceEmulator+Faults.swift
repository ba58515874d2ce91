package import RelayJSON

// MARK: - Injected faults (what the provider API answered instead of delivering)

extension DeviceEmulator {
    /// Logs a valid push that an injected fault answered instead of the device: outcome
    /// `injected`, `status` and `reason` as answered (0 and nil when no answer was sent), the
    /// fault in the record, and `push.received` emitted. The device state is not touched.
    package mutating func recordInjected(
        _ push: LiveActivityPushRequest, status: Int, reason: String?, fault: JSONValue, context: PushContext,
        at time: UnixSeconds
    ) -> PushResult {
        let now = arrive(at: time)
        var record = PushRecord(
            apnsId: context.apnsId, uniqueId: context.uniqueId, receivedAt: now, token: push.deviceToken.hex,
            bundleId: push.bundleID, loggedHeaders: context.headers, loggedPayload: context.payload, status: status,
            reason: reason, outcome: .injected)
        record.fault = fault
        let deviceId: String?
        if let entry = tokens[push.deviceToken.key] {
            switch entry.target {
            case .activity(let position):
                record.activityId = activities[position: position].id
                deviceId = activities[position: position].deviceId
            case .pushToStart(let startDeviceId, _, _):
                deviceId = startDeviceId
            }
        } else {
            deviceId = nil
        }
        if let reason { record.responseBody = .object(["reason": .string(reason)]) }
        record.hintNotes = [.text("injected by fault rule \(fault["rule"]?.stringValue ?? "?"); not delivered")]
        let seq = nextSeq
        emit(RelayEvent(type: .pushReceived, at: now, push: copy record, deviceId: deviceId))
        var error: APNsError?
        if status >= 400, let reason {
            var refusal = APNsError(APNsReason(rawValue: reason), "injected by fault rule")
            refusal.status = status
            error = refusal
        }
        return PushResult(error: error, record: record, seq: seq)
    }
}
