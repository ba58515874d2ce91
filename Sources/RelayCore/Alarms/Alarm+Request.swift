package import RelayJSON

/// Parsing the app API's `POST /v1/alarms` body into a scheduled alarm.
extension Alarm {
    /// Schedules the alarm a `POST /v1/alarms` body describes, at `now`:
    /// `{deviceId, bundleId, id?, schedule?, timeZone?, countdownDuration?, presentation,
    /// metadata?, tintColor?, sound?}` (a `null` member counts as absent; unknown members are
    /// ignored). `defaultId` (a fresh UUID string from the caller) is used when the body has no
    /// `id`. Errors name the JSON path, e.g. `schedule.relative.hour: must be an integer 0-23`.
    package static func fromRequest(_ body: JSONValue, defaultId: String, at now: UnixSeconds) throws(AlarmError)
        -> Alarm
    {
        let members = try AlarmJSON.object(body, at: "body")
        func string(_ key: String, maxBytes: Int) throws(AlarmError) -> String? {
            try AlarmJSON.member(members, key).map { value throws(AlarmError) in
                try AlarmJSON.string(value, at: key, maxBytes: maxBytes)
            }
        }
        func requiredString(_ key: String) throws(AlarmError) -> String {
            guard let text = try string(key, maxBytes: AlarmLimits.maximumIdentifierBytes) else {
                throw AlarmError.invalidField(path: key, message: "is required")
            }
            return text
        }

        let deviceId = try requiredString("deviceId")
        let bundleId = try requiredString("bundleId")
        let id = try string("id", maxBytes: 36) ?? defaultId
        let schedule = try AlarmJSON.member(members, "schedule").map { value throws(AlarmError) in
            try AlarmSchedule(json: value)
        }
        let timeZone = try string("timeZone", maxBytes: AlarmLimits.maximumTimeZoneBytes) ?? "UTC"
        let countdownDuration = try AlarmJSON.member(members, "countdownDuration").map { value throws(AlarmError) in
            try AlarmCountdownDuration(json: value)
        }
        let presentation = try AlarmJSON.required(members, "presentation", in: "")
        return try Alarm.schedule(
            id: id, deviceId: deviceId, bundleId: bundleId, schedule: schedule, timeZone: timeZone,
            countdownDuration: countdownDuration, presentation: presentation,
            metadata: AlarmJSON.member(members, "metadata"),
            tintColor: string("tintColor", maxBytes: AlarmLimits.maximumStyleBytes),
            sound: string("sound", maxBytes: AlarmLimits.maximumStyleBytes), at: now)
    }
}
