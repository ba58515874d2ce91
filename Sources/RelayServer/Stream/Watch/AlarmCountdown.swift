package import RelayCore
package import RelayJSON

/// What an alarm's Live Activity shows at a given moment, computed from its `presentationState`
/// alone (as an `alarm.updated` event carries it) and the relay's time: the countdown a consumer
/// renders every second, or the alert time.
package enum AlarmCountdown: Sendable, Equatable {
    /// A running countdown: seconds left (never negative), the total, and when it fires.
    case running(remaining: Double, total: Double, fireDate: UnixSeconds)
    /// A paused countdown: seconds left and the total.
    case paused(remaining: Double, total: Double)
    /// The alert: the time of day it is for, in the alarm's time zone.
    case alert(hour: Int, minute: Int)

    /// Reads `presentationState` (`{"mode": "countdown" | "paused" | "alert", ...}`) at relay time
    /// `now`; nil for null or a shape that is not one of the three.
    package init?(presentationState state: JSONValue, now: UnixSeconds) {
        switch state["mode"]?.stringValue {
        case "countdown":
            guard let total = state["totalCountdownDuration"]?.doubleValue,
                let fireDate = state["fireDate"]?.doubleValue
            else { return nil }
            self = .running(remaining: max(0, fireDate - now), total: total, fireDate: fireDate)
        case "paused":
            guard let total = state["totalCountdownDuration"]?.doubleValue,
                let elapsed = state["previouslyElapsedDuration"]?.doubleValue
            else { return nil }
            self = .paused(remaining: max(0, total - elapsed), total: total)
        case "alert":
            guard let hour = state["time"]?["hour"]?.int64Value, let minute = state["time"]?["minute"]?.int64Value
            else {
                return nil
            }
            self = .alert(hour: Int(hour), minute: Int(minute))
        default:
            return nil
        }
    }

    /// `04:12 left of 05:00`, `paused, 03:20 left of 05:00` or `alert at 07:30`.
    package var text: String {
        switch self {
        case .running(let remaining, let total, _):
            return "\(Self.clockText(remaining)) left of \(Self.clockText(total))"
        case .paused(let remaining, let total):
            return "paused, \(Self.clockText(remaining)) left of \(Self.clockText(total))"
        case .alert(let hour, let minute):
            return "alert at \(Self.twoDigits(hour)):\(Self.twoDigits(minute))"
        }
    }

    /// Whole seconds as `mm:ss`, or `h:mm:ss` from an hour up; rounds up so a countdown shows
    /// `00:01` until it is really over.
    package static func clockText(_ seconds: Double) -> String {
        let whole = seconds.isFinite ? Int(max(0, seconds).rounded(.up)) : 0
        let (hours, minutes, secs) = (whole / 3600, whole / 60 % 60, whole % 60)
        if hours > 0 { return "\(hours):\(twoDigits(minutes)):\(twoDigits(secs))" }
        return "\(twoDigits(minutes)):\(twoDigits(secs))"
    }

    static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
}
