package import RelayJSON

/// When an alarm alerts, as AlarmKit's `Alarm.Schedule`.
///
/// - `fixed`: one absolute instant, not tied to a time zone (a game's start).
/// - `relative`: a wall-clock time in the alarm's time zone, once or on some weekdays (a wake-up);
///   daylight saving is followed (see `AlarmCalendar`).
///
/// JSON (`schedule` in the app API): `{"fixed": unixSeconds}` or
/// `{"relative": {"hour": 7, "minute": 30, "repeats": "never" | {"weekly": ["monday", ...]}}}`.
package enum AlarmSchedule: Sendable, Hashable {
    case fixed(UnixSeconds)
    case relative(hour: Int, minute: Int, repeats: Recurrence)

    /// How often a relative schedule recurs.
    package enum Recurrence: Sendable, Hashable {
        /// Once, at the next occurrence of the time after scheduling.
        case never
        /// On each listed day of the week (in the alarm's time zone). Never empty once validated;
        /// kept sorted Sunday first, without duplicates.
        case weekly([Weekday])
    }

    /// A day of the week, named as in JSON (`"monday"`); ordered Sunday first as `Locale.Weekday`.
    package enum Weekday: String, Sendable, Hashable, CaseIterable, Comparable {
        case sunday, monday, tuesday, wednesday, thursday, friday, saturday

        /// 0 for Sunday through 6 for Saturday.
        var index: Int {
            switch self {
            case .sunday: return 0
            case .monday: return 1
            case .tuesday: return 2
            case .wednesday: return 3
            case .thursday: return 4
            case .friday: return 5
            case .saturday: return 6
            }
        }

        /// Orders by `index`, Sunday first.
        package static func < (lhs: Weekday, rhs: Weekday) -> Bool { lhs.index < rhs.index }
    }

    /// True for a weekly relative schedule: `stop` reschedules it instead of removing it.
    package var isRepeating: Bool {
        if case .relative(_, _, .weekly) = self { return true }
        return false
    }

    /// The same schedule with its ranges checked and its weekdays sorted and deduplicated.
    /// Does not look at the clock: whether a fixed date is already past is the caller's check.
    func validated() throws(AlarmError) -> AlarmSchedule {
        switch self {
        case .fixed(let date):
            guard date.isFinite, date >= 0, date <= AlarmLimits.latestDate else {
                throw AlarmError.invalidField(
                    path: "schedule.fixed",
                    message: "must be Unix seconds between 0 and \(Int(AlarmLimits.latestDate)) (got \(date))")
            }
            return self
        case .relative(let hour, let minute, let repeats):
            guard (0...23).contains(hour) else {
                throw AlarmError.invalidField(
                    path: "schedule.relative.hour", message: "must be an integer 0-23 (got \(hour))")
            }
            guard (0...59).contains(minute) else {
                throw AlarmError.invalidField(
                    path: "schedule.relative.minute", message: "must be an integer 0-59 (got \(minute))")
            }
            guard case .weekly(let days) = repeats else { return self }
            let unique = Set(days).sorted()
            guard !unique.isEmpty else {
                throw AlarmError.invalidField(
                    path: "schedule.relative.repeats.weekly", message: "must list at least one weekday")
            }
            return .relative(hour: hour, minute: minute, repeats: .weekly(unique))
        }
    }
}

// MARK: - JSON

extension AlarmSchedule {
    /// The schedule in the app API's JSON shape.
    package var json: JSONValue {
        switch self {
        case .fixed(let date):
            return ["fixed": .number(date)]
        case .relative(let hour, let minute, let repeats):
            let repeatsJSON: JSONValue
            switch repeats {
            case .never: repeatsJSON = "never"
            case .weekly(let days): repeatsJSON = ["weekly": .array(days.map { .string($0.rawValue) })]
            }
            return ["relative": ["hour": .int(Int64(hour)), "minute": .int(Int64(minute)), "repeats": repeatsJSON]]
        }
    }

    /// Parses and validates the JSON shape; errors name paths under `schedule`.
    package init(json: JSONValue) throws(AlarmError) {
        let path = "schedule"
        let members = try AlarmJSON.object(json, at: path)
        let fixed = AlarmJSON.member(members, "fixed")
        let relative = AlarmJSON.member(members, "relative")
        switch (fixed, relative) {
        case (let date?, nil):
            self = .fixed(try AlarmJSON.number(date, at: AlarmJSON.path(path, "fixed")))
        case (nil, let relative?):
            let relativePath = AlarmJSON.path(path, "relative")
            let fields = try AlarmJSON.object(relative, at: relativePath)
            let hour = try Self.integer(fields, "hour", in: relativePath, range: 0...23)
            let minute = try Self.integer(fields, "minute", in: relativePath, range: 0...59)
            let repeats = try Self.recurrence(
                AlarmJSON.member(fields, "repeats"), at: AlarmJSON.path(relativePath, "repeats"))
            self = .relative(hour: hour, minute: minute, repeats: repeats)
        default:
            throw AlarmError.invalidField(path: path, message: "must have exactly one of \"fixed\" or \"relative\"")
        }
        self = try validated()
    }

    /// An integer member within `range`; "must be an integer 0-23" names the range either way.
    private static func integer(
        _ members: JSONObject, _ key: String, in parent: String, range: ClosedRange<Int>
    ) throws(AlarmError) -> Int {
        let fieldPath = AlarmJSON.path(parent, key)
        let message = "must be an integer \(range.lowerBound)-\(range.upperBound)"
        guard let value = AlarmJSON.member(members, key) else {
            throw AlarmError.invalidField(path: fieldPath, message: message + " (missing)")
        }
        guard let number = value.int64Value, number >= range.lowerBound, number <= range.upperBound else {
            throw AlarmError.invalidField(path: fieldPath, message: message + " (got \(AlarmJSON.describe(value)))")
        }
        return Int(number)
    }

    /// `"never"` (or absent) or `{"weekly": [day, ...]}`.
    private static func recurrence(_ value: JSONValue?, at path: String) throws(AlarmError) -> Recurrence {
        guard let value else { return .never }
        if value.stringValue == "never" { return .never }
        let message = "must be \"never\" or {\"weekly\": [weekday, ...]}"
        guard let members = value.objectValue, members.count == 1, let list = members["weekly"] else {
            throw AlarmError.invalidField(path: path, message: message + " (got \(AlarmJSON.describe(value)))")
        }
        let listPath = AlarmJSON.path(path, "weekly")
        guard let entries = list.arrayValue else {
            throw AlarmError.invalidField(path: listPath, message: "must be an array of weekday names")
        }
        guard entries.count <= Weekday.allCases.count else {
            throw AlarmError.invalidField(
                path: listPath, message: "must list at most 7 weekdays (got \(entries.count))")
        }
        var days: [Weekday] = []
        for (position, entry) in entries.enumerated() {
            guard let name = entry.stringValue, let day = Weekday(rawValue: name) else {
                throw AlarmError.invalidField(
                    path: listPath + "[\(position)]",
                    message: "must be a weekday name sunday...saturday (got \(AlarmJSON.describe(entry)))")
            }
            days.append(day)
        }
        return .weekly(days)
    }
}
