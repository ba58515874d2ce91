/// Something that happened to an activity because time passed, stamped with when it happened.
///
/// `LiveActivity.advance(to:rules:)` returns these in time order; state changes caused by an update
/// itself (an update whose stale date is already past) are part of that update, not transitions.
package enum ActivityTransition: Sendable, Hashable {
    /// The stale date was reached.
    case becameStale(at: UnixSeconds)
    /// A held update was applied (drawing a budget token if it was held for the budget).
    case deferredUpdateApplied(at: UnixSeconds, update: ActivityUpdate)
    /// A held update was dropped: the activity ended first, or newer data had been applied meanwhile.
    case deferredUpdateDiscarded(at: UnixSeconds, update: ActivityUpdate)
    /// The active lifetime ran out and the system ended the activity.
    case endedBySystem(at: UnixSeconds)
    /// The dismissal time was reached.
    case dismissed(at: UnixSeconds)

    /// When it happened.
    package var at: UnixSeconds {
        switch self {
        case .becameStale(let at), .endedBySystem(let at), .dismissed(let at): return at
        case .deferredUpdateApplied(let at, _), .deferredUpdateDiscarded(let at, _): return at
        }
    }
}
