package import RelayJSON

/// What the alarm's Live Activity shows, as AlarmKit's `AlarmPresentationState.Mode`.
///
/// - `alert`: the time the alarm is for, as hour and minute in the alarm's time zone (AlarmKit's
///   `Alert.time` is a `Relative.Time`, not a date).
/// - `countdown`: a running countdown. `previouslyElapsedDuration` is what elapsed before the most
///   recent start or resume (0 if never paused), `startDate` that start or resume, and
///   `fireDate = startDate + (totalCountdownDuration - previouslyElapsedDuration)` when it alerts.
/// - `paused`: a paused countdown; `previouslyElapsedDuration` is everything elapsed so far.
package enum AlarmPresentationState: Sendable, Hashable {
    case alert(hour: Int, minute: Int)
    case countdown(
        totalCountdownDuration: Double, previouslyElapsedDuration: Double, startDate: UnixSeconds,
        fireDate: UnixSeconds)
    case paused(totalCountdownDuration: Double, previouslyElapsedDuration: Double)

    /// The mode name used in JSON and in `alarm.updated` events: `alert`, `countdown` or `paused`.
    package var mode: String {
        switch self {
        case .alert: return "alert"
        case .countdown: return "countdown"
        case .paused: return "paused"
        }
    }
}

// MARK: - JSON

extension AlarmPresentationState {
    /// `{"mode": "alert", "time": {"hour", "minute"}}`, `{"mode": "countdown",
    /// "totalCountdownDuration", "previouslyElapsedDuration", "startDate", "fireDate"}` or
    /// `{"mode": "paused", "totalCountdownDuration", "previouslyElapsedDuration"}`.
    package var json: JSONValue {
        switch self {
        case .alert(let hour, let minute):
            return ["mode": "alert", "time": ["hour": .int(Int64(hour)), "minute": .int(Int64(minute))]]
        case .countdown(let total, let elapsed, let start, let fire):
            return [
                "mode": "countdown", "totalCountdownDuration": .number(total),
                "previouslyElapsedDuration": .number(elapsed), "startDate": .number(start), "fireDate": .number(fire),
            ]
        case .paused(let total, let elapsed):
            return [
                "mode": "paused", "totalCountdownDuration": .number(total),
                "previouslyElapsedDuration": .number(elapsed),
            ]
        }
    }

    /// Parses the JSON shape back; errors name paths under `presentationState`.
    package init(json: JSONValue) throws(AlarmError) {
        let path = "presentationState"
        let members = try AlarmJSON.object(json, at: path)
        let mode = try AlarmJSON.required(members, "mode", in: path)
        func number(_ key: String) throws(AlarmError) -> Double {
            try AlarmJSON.number(AlarmJSON.required(members, key, in: path), at: AlarmJSON.path(path, key))
        }
        switch mode.stringValue {
        case "alert":
            let timePath = AlarmJSON.path(path, "time")
            let time = try AlarmJSON.object(AlarmJSON.required(members, "time", in: path), at: timePath)
            guard let hour = time["hour"]?.int64Value, (0...23).contains(hour) else {
                throw AlarmError.invalidField(
                    path: AlarmJSON.path(timePath, "hour"), message: "must be an integer 0-23")
            }
            guard let minute = time["minute"]?.int64Value, (0...59).contains(minute) else {
                throw AlarmError.invalidField(
                    path: AlarmJSON.path(timePath, "minute"), message: "must be an integer 0-59")
            }
            self = .alert(hour: Int(hour), minute: Int(minute))
        case "countdown":
            self = .countdown(
                totalCountdownDuration: try number("totalCountdownDuration"),
                previouslyElapsedDuration: try number("previouslyElapsedDuration"),
                startDate: try number("startDate"), fireDate: try number("fireDate"))
        case "paused":
            self = .paused(
                totalCountdownDuration: try number("totalCountdownDuration"),
                previouslyElapsedDuration: try number("previouslyElapsedDuration"))
        default:
            throw AlarmError.invalidField(
                path: AlarmJSON.path(path, "mode"),
                message: "must be \"alert\", \"countdown\" or \"paused\" (got \(AlarmJSON.describe(mode)))")
        }
    }
}
