/// Where an alarm is in its life, as AlarmKit's `Alarm.State` names it.
///
/// - `scheduled`: waiting for its next alert (or for the start of its pre-alert countdown).
/// - `countdown`: counting down to an alert (a timer, a pre-alert, or a snooze / repeat).
/// - `paused`: a countdown the person paused; it never fires until resumed.
/// - `alerting`: firing now. It stays so until an operation (`stop`, `countdown`, `cancel`) ends it:
///   the relay never silences an alarm on its own.
///
/// A removed alarm has no state of its own: it is gone (see `Alarm.removedAt`).
package enum AlarmState: String, Sendable, Hashable, CaseIterable {
    case scheduled
    case countdown
    case paused
    case alerting
}
