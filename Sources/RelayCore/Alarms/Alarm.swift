package import RelayJSON

/// One AlarmKit alarm on an emulated device, as a pure value.
///
/// Created by `schedule(...)` (or `fromRequest` / `fromJSON`), moved by its operations (`pause`,
/// `resume`, `countdown`, `stop`, `cancel`) and by time (`advance(to:)`), each of which returns the
/// `AlarmTransition`s that happened so the caller can emit `alarm.updated` / `alarm.removed`.
/// Nothing here reads a clock: every instant is an argument.
///
/// Field meanings beyond AlarmKit's:
/// - `nextAlertAt`: when the alarm will next alert if nobody acts: the scheduled alert while
///   `scheduled`, the fire date while `countdown`; nil while `paused` (it never fires paused),
///   `alerting` (it is alerting now) and once removed.
/// - `presentationState`: `.alert` of the time the alarm is for while `scheduled` or `alerting`
///   (a relative schedule's own hour and minute, else the wall clock of the alert instant in the
///   alarm's time zone), `.countdown` / `.paused` in those states, nil only once removed.
package struct Alarm: Sendable, Hashable {
    /// The alarm's identifier, a UUID string chosen by the caller.
    package let id: String
    /// The emulated device that owns the alarm.
    package let deviceId: String
    /// The app that scheduled it.
    package let bundleId: String
    /// When it alerts; nil for a timer (countdown only).
    package let schedule: AlarmSchedule?
    /// IANA identifier of the time zone relative schedules and alert times follow (default `UTC`).
    package let timeZone: String
    /// Pre- and post-alert countdown lengths, if any.
    package let countdownDuration: AlarmCountdownDuration?
    /// `AlarmPresentation` texts as the app sent them: `{alert, countdown?, paused?}`.
    package let presentation: JSONValue
    /// The app's `AlarmMetadata`, as sent.
    package let metadata: JSONValue?
    /// `AlarmAttributes.tintColor`, as sent.
    package let tintColor: String?
    /// The alert sound name, as sent.
    package let sound: String?

    /// The current state (the last one before removal, for a removed alarm).
    package internal(set) var state: AlarmState
    /// When it will next alert if nobody acts (see the type's documentation).
    package internal(set) var nextAlertAt: UnixSeconds?
    /// What its Live Activity shows (see the type's documentation).
    package internal(set) var presentationState: AlarmPresentationState?
    /// The scheduled alert instant of the current cycle, nil for a timer. `stop` on a repeating
    /// alarm reschedules to the first occurrence after this one (and after now).
    package internal(set) var occurrenceAt: UnixSeconds?
    /// True once the alarm has alerted in its current cycle (reset when a repeating alarm is
    /// rescheduled); a countdown that follows an alert is a post-alert (snooze) countdown.
    package internal(set) var hasAlerted: Bool
    /// When it was stopped for good or cancelled; nil while it exists.
    package internal(set) var removedAt: UnixSeconds?

    /// Creates an alarm from already-validated parts and places it in its first state. Callers
    /// go through `schedule(...)`, which validates, or `fromJSON`, which restores.
    init(
        id: String, deviceId: String, bundleId: String, schedule: AlarmSchedule?, timeZone: String,
        countdownDuration: AlarmCountdownDuration?, presentation: JSONValue, metadata: JSONValue?,
        tintColor: String?, sound: String?, state: AlarmState
    ) {
        self.id = id
        self.deviceId = deviceId
        self.bundleId = bundleId
        self.schedule = schedule
        self.timeZone = timeZone
        self.countdownDuration = countdownDuration
        self.presentation = presentation
        self.metadata = metadata
        self.tintColor = tintColor
        self.sound = sound
        self.state = state
        self.nextAlertAt = nil
        self.presentationState = nil
        self.occurrenceAt = nil
        self.hasAlerted = false
        self.removedAt = nil
    }

    /// True for a weekly relative alarm, which `stop` reschedules instead of removing.
    package var isRepeating: Bool { schedule?.isRepeating ?? false }
}

// MARK: - Scheduling

extension Alarm {
    /// Schedules a new alarm at `now`, as `AlarmManager.schedule(id:configuration:)`.
    ///
    /// - Countdown only (a timer): `countdown` at once, firing at `now + preAlert`.
    /// - Schedule only: `scheduled`, alerting at the schedule's next instant.
    /// - Schedule and preAlert: `scheduled`, entering `countdown` preAlert seconds before the alert;
    ///   when that moment has already passed it counts down at once for the remaining time
    ///   (`previouslyElapsedDuration` holds the part of preAlert already gone).
    ///
    /// A fixed date equal to `now` is accepted and alerts on the next `advance(to: now)`.
    /// Errors name the field: `id`, `deviceId`, `bundleId`, `timeZone`, `schedule...`,
    /// `countdownDuration...`, `presentation...`, `metadata`, `tintColor`, `sound`.
    package static func schedule(
        id: String, deviceId: String, bundleId: String, schedule: AlarmSchedule?, timeZone: String = "UTC",
        countdownDuration: AlarmCountdownDuration?, presentation: JSONValue, metadata: JSONValue? = nil,
        tintColor: String? = nil, sound: String? = nil, at now: UnixSeconds
    ) throws(AlarmError) -> Alarm {
        try validateIdentity(id: id, deviceId: deviceId, bundleId: bundleId)
        try validateTimeZone(timeZone)
        let schedule = try schedule?.validated()
        try countdownDuration?.validate()
        try validatePresentation(presentation)
        if let metadata { try AlarmJSON.checkPayload(metadata, at: "metadata") }
        if let tintColor {
            try AlarmJSON.checkLength(tintColor, at: "tintColor", maxBytes: AlarmLimits.maximumStyleBytes)
        }
        if let sound { try AlarmJSON.checkLength(sound, at: "sound", maxBytes: AlarmLimits.maximumStyleBytes) }

        var alarm = Alarm(
            id: id, deviceId: deviceId, bundleId: bundleId, schedule: schedule, timeZone: timeZone,
            countdownDuration: countdownDuration, presentation: presentation, metadata: metadata,
            tintColor: tintColor, sound: sound, state: .scheduled)
        switch schedule {
        case nil:
            guard let preAlert = countdownDuration?.preAlert else {
                throw AlarmError.invalidField(
                    path: "schedule", message: "is required when countdownDuration.preAlert is absent")
            }
            alarm.enterCountdown(total: preAlert, elapsed: 0, start: now, fire: now + preAlert)
        case .fixed(let date)?:
            guard !WholeSeconds.isEarlier(date, than: now) else {
                throw AlarmError.invalidField(path: "schedule.fixed", message: "is in the past (\(date) < now \(now))")
            }
            alarm.arm(alertAt: date, at: now)
        case .relative?:
            guard let first = alarm.nextOccurrence(after: now) else {
                throw AlarmError.invalidField(path: "schedule.relative", message: "has no next occurrence")
            }
            alarm.arm(alertAt: first, at: now)
        }
        return alarm
    }

    /// Fails unless `id` is a UUID string and `deviceId` / `bundleId` are non-empty and bounded.
    static func validateIdentity(id: String, deviceId: String, bundleId: String) throws(AlarmError) {
        guard isUUID(id) else {
            throw AlarmError.invalidField(
                path: "id",
                message: "must be a UUID string like 5F1C0A52-8A4E-4C47-9B7E-2D3F6A1B9C10 "
                    + "(got \(AlarmJSON.describe(.string(id))))")
        }
        try AlarmJSON.checkLength(deviceId, at: "deviceId", maxBytes: AlarmLimits.maximumIdentifierBytes)
        try AlarmJSON.checkLength(bundleId, at: "bundleId", maxBytes: AlarmLimits.maximumIdentifierBytes)
    }

    /// Fails unless `timeZone` is a bounded identifier Foundation knows.
    static func validateTimeZone(_ timeZone: String) throws(AlarmError) {
        try AlarmJSON.checkLength(timeZone, at: "timeZone", maxBytes: AlarmLimits.maximumTimeZoneBytes)
        guard AlarmCalendar.isKnown(timeZone: timeZone) else {
            throw AlarmError.invalidField(
                path: "timeZone", message: "unknown time zone \(AlarmJSON.describe(.string(timeZone)))")
        }
    }

    /// `presentation` must be `{alert: {...}, countdown?: {...}, paused?: {...}}` within the size limit.
    static func validatePresentation(_ presentation: JSONValue) throws(AlarmError) {
        let members = try AlarmJSON.object(presentation, at: "presentation")
        _ = try AlarmJSON.object(AlarmJSON.required(members, "alert", in: "presentation"), at: "presentation.alert")
        for key in ["countdown", "paused"] {
            if let part = AlarmJSON.member(members, key) { _ = try AlarmJSON.object(part, at: "presentation." + key) }
        }
        try AlarmJSON.checkPayload(presentation, at: "presentation")
    }

    /// True for the 8-4-4-4-12 hexadecimal form of a UUID, either case.
    static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (position, byte) in bytes.enumerated() {
            if position == 8 || position == 13 || position == 18 || position == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                let isHex = (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
                guard isHex else { return false }
            }
        }
        return true
    }
}
