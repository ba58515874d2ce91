package import RelayJSON

/// The alarm as JSON: the app API's alarm shape (CONTRACT section 5), which is also how the store
/// persists alarms, and its exact inverse `fromJSON`.
extension Alarm {
    /// `id, deviceId, bundleId, state, schedule, countdownDuration, nextAlertAt, presentationState`
    /// as the contract lists them, plus `timeZone, presentation, metadata, tintColor, sound` as
    /// sent and the bookkeeping `occurrenceAt, hasAlerted, removedAt`. Absent values are `null`.
    package var json: JSONValue {
        .object([
            "id": .string(id),
            "deviceId": .string(deviceId),
            "bundleId": .string(bundleId),
            "state": .string(state.rawValue),
            "schedule": .optional(schedule?.json),
            "timeZone": .string(timeZone),
            "countdownDuration": .optional(countdownDuration?.json),
            "nextAlertAt": .optional(nextAlertAt.map(JSONValue.number)),
            "presentationState": .optional(presentationState?.json),
            "presentation": presentation,
            "metadata": .optional(metadata),
            "tintColor": .optional(tintColor.map(JSONValue.string)),
            "sound": .optional(sound.map(JSONValue.string)),
            "occurrenceAt": .optional(occurrenceAt.map(JSONValue.number)),
            "hasAlerted": .bool(hasAlerted),
            "removedAt": .optional(removedAt.map(JSONValue.number)),
        ])
    }

    /// Restores an alarm from its own `json`. Unlike scheduling, a fixed date in the past is fine
    /// (the alarm may be restored after it fired); the state must agree with `presentationState`.
    package static func fromJSON(_ value: JSONValue) throws(AlarmError) -> Alarm {
        let members = try AlarmJSON.object(value, at: "alarm")
        func string(_ key: String, maxBytes: Int = AlarmLimits.maximumIdentifierBytes) throws(AlarmError) -> String {
            try AlarmJSON.string(AlarmJSON.required(members, key, in: ""), at: key, maxBytes: maxBytes)
        }
        func instant(_ key: String) throws(AlarmError) -> UnixSeconds? {
            guard let raw = AlarmJSON.member(members, key) else { return nil }
            return try checkedInstant(AlarmJSON.number(raw, at: key), at: key)
        }

        let id = try string("id", maxBytes: 36)
        let deviceId = try string("deviceId")
        let bundleId = try string("bundleId")
        try validateIdentity(id: id, deviceId: deviceId, bundleId: bundleId)
        let stateName = try string("state")
        guard let state = AlarmState(rawValue: stateName) else {
            throw AlarmError.invalidField(
                path: "state", message: "unknown state \(AlarmJSON.describe(.string(stateName)))")
        }
        let timeZone =
            try AlarmJSON.member(members, "timeZone").map { value throws(AlarmError) in
                try AlarmJSON.string(value, at: "timeZone", maxBytes: AlarmLimits.maximumTimeZoneBytes)
            } ?? "UTC"
        try validateTimeZone(timeZone)
        let schedule = try AlarmJSON.member(members, "schedule").map { value throws(AlarmError) in
            try AlarmSchedule(json: value)
        }
        let countdownDuration = try AlarmJSON.member(members, "countdownDuration").map { value throws(AlarmError) in
            try AlarmCountdownDuration(json: value)
        }
        if schedule == nil, countdownDuration?.preAlert == nil {
            throw AlarmError.invalidField(
                path: "schedule", message: "is required when countdownDuration.preAlert is absent")
        }
        let presentation = try AlarmJSON.required(members, "presentation", in: "")
        try validatePresentation(presentation)
        let metadata = AlarmJSON.member(members, "metadata")
        if let metadata { try AlarmJSON.checkPayload(metadata, at: "metadata") }
        let tintColor = try AlarmJSON.member(members, "tintColor").map { value throws(AlarmError) in
            try AlarmJSON.string(value, at: "tintColor", maxBytes: AlarmLimits.maximumStyleBytes)
        }
        let sound = try AlarmJSON.member(members, "sound").map { value throws(AlarmError) in
            try AlarmJSON.string(value, at: "sound", maxBytes: AlarmLimits.maximumStyleBytes)
        }

        var alarm = Alarm(
            id: id, deviceId: deviceId, bundleId: bundleId, schedule: schedule, timeZone: timeZone,
            countdownDuration: countdownDuration, presentation: presentation, metadata: metadata,
            tintColor: tintColor, sound: sound, state: state)
        alarm.nextAlertAt = try instant("nextAlertAt")
        alarm.occurrenceAt = try instant("occurrenceAt")
        alarm.removedAt = try instant("removedAt")
        alarm.hasAlerted =
            try AlarmJSON.member(members, "hasAlerted").map { value throws(AlarmError) in
                try AlarmJSON.bool(value, at: "hasAlerted")
            } ?? false
        alarm.presentationState = try AlarmJSON.member(members, "presentationState").map { value throws(AlarmError) in
            try AlarmPresentationState(json: value)
        }
        try alarm.checkConsistency()
        return alarm
    }

    /// Fails when the restored fields could not have come from this model.
    private func checkConsistency() throws(AlarmError) {
        if removedAt != nil {
            guard presentationState == nil, nextAlertAt == nil else {
                throw AlarmError.invalidField(
                    path: "removedAt", message: "a removed alarm has null nextAlertAt and presentationState")
            }
            return
        }
        let mismatch = AlarmError.invalidField(
            path: "presentationState", message: "does not fit state \(state.rawValue)")
        switch (state, presentationState) {
        case (.scheduled, .alert?):
            guard nextAlertAt != nil else {
                throw AlarmError.invalidField(path: "nextAlertAt", message: "is required in state scheduled")
            }
        case (.alerting, .alert?):
            guard nextAlertAt == nil else {
                throw AlarmError.invalidField(path: "nextAlertAt", message: "must be null in state alerting")
            }
        case (.countdown, .countdown(let total, let elapsed, let start, let fire)?):
            try Self.checkCountdown(total: total, elapsed: elapsed)
            _ = try Self.checkedInstant(start, at: "presentationState.startDate")
            _ = try Self.checkedInstant(fire, at: "presentationState.fireDate")
            guard nextAlertAt == fire else {
                throw AlarmError.invalidField(path: "nextAlertAt", message: "must equal presentationState.fireDate")
            }
        case (.paused, .paused(let total, let elapsed)?):
            try Self.checkCountdown(total: total, elapsed: elapsed)
            guard nextAlertAt == nil else {
                throw AlarmError.invalidField(path: "nextAlertAt", message: "must be null in state paused")
            }
        default:
            throw mismatch
        }
    }

    private static func checkCountdown(total: Double, elapsed: Double) throws(AlarmError) {
        guard total > 0, total <= AlarmLimits.maximumDuration else {
            throw AlarmError.invalidField(
                path: "presentationState.totalCountdownDuration",
                message: "must be positive and within the limit (got \(total))")
        }
        guard elapsed >= 0, elapsed <= total else {
            throw AlarmError.invalidField(
                path: "presentationState.previouslyElapsedDuration",
                message: "must be between 0 and totalCountdownDuration (got \(elapsed))")
        }
    }

    private static func checkedInstant(_ instant: UnixSeconds, at path: String) throws(AlarmError) -> UnixSeconds {
        // A countdown may end past the latest fixed date by at most its own length.
        guard instant >= 0, instant <= AlarmLimits.latestDate + AlarmLimits.maximumDuration else {
            throw AlarmError.invalidField(path: path, message: "must be Unix seconds in range (got \(instant))")
        }
        return instant
    }
}
