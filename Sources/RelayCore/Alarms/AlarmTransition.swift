/// One thing that happened to an alarm, with the instant it happened.
///
/// A state change becomes an `alarm.updated` event, a removal an `alarm.removed` event. Transitions
/// come back from operations and from `Alarm.advance(to:)` in the order they happened.
package enum AlarmTransition: Sendable, Hashable {
    /// The alarm moved from one state to another. `from == to` when a repeating alarm is
    /// rescheduled into the state it was already in (its next alert changed).
    case stateChanged(from: AlarmState, to: AlarmState, at: UnixSeconds)
    /// The alarm was stopped for good or cancelled; it no longer exists for the app.
    case removed(at: UnixSeconds)

    /// The instant the transition happened.
    package var at: UnixSeconds {
        switch self {
        case .stateChanged(_, _, let at), .removed(let at): return at
        }
    }
}
