/// Why an alarm could not be created, restored or operated on.
///
/// Field errors name the JSON path of the offending input (`schedule.relative.hour`) and say what
/// was wrong with the value, so the app API can hand the message straight back to the caller.
package enum AlarmError: Error, Sendable, Hashable {
    /// An input field is missing, of the wrong type or out of range. `path` is its JSON path.
    case invalidField(path: String, message: String)
    /// The operation is not allowed from the alarm's current state (AlarmKit throws here too).
    case invalidState(current: AlarmState, operation: String)
    /// `countdown` (snooze / repeat) on an alarm that has neither a postAlert nor a preAlert duration.
    case noCountdownDuration(id: String)
    /// An operation on an alarm that has already been stopped for good or cancelled.
    case alarmRemoved(id: String)

    /// A short machine-readable code for the app API's `{"error": ...}` body.
    package var code: String {
        switch self {
        case .invalidField: return "invalidRequest"
        case .invalidState, .noCountdownDuration: return "invalidState"
        case .alarmRemoved: return "notFound"
        }
    }

    /// A human-readable explanation naming the field or the state involved.
    package var message: String {
        switch self {
        case .invalidField(let path, let message):
            return "\(path): \(message)"
        case .invalidState(let current, let operation):
            return "cannot \(operation) an alarm in state \(current.rawValue)"
        case .noCountdownDuration(let id):
            return "alarm \(id) has no postAlert or preAlert duration to count down"
        case .alarmRemoved(let id):
            return "alarm \(id) has been removed"
        }
    }
}

extension AlarmError: CustomStringConvertible {
    /// Same as `message`.
    package var description: String { message }
}
