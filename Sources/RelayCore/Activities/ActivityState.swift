/// Where a Live Activity is in its life, as ActivityKit's `ActivityState` names it.
///
/// `active` → `stale` (stale date reached; a later update can make it active again) → `ended` (by the
/// app, a push or the system after the active lifetime) → `dismissed` (gone from the Lock Screen).
/// ActivityKit's `pending` (scheduled start) is not emulated.
package enum ActivityState: String, Sendable, Hashable, CaseIterable {
    /// Running and current.
    case active
    /// Running, but its content is past its stale date.
    case stale
    /// Ended; still visible until its dismissal time.
    case ended
    /// Removed.
    case dismissed

    /// True for `ended` and `dismissed`: the activity takes no more updates.
    package var isOver: Bool { self == .ended || self == .dismissed }
}
