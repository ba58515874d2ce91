/// What the emulated device did with an update. The provider still answers `200` for every outcome
/// but `refusedOverBudget` (`429`) and `rejectedEnded` (`410 Unregistered`); the outcome goes to the
/// push log and the event stream.
package enum ActivityUpdateOutcome: Sendable, Hashable {
    /// Shown now.
    case applied
    /// Held until `until` (see `DeferralReason`); nothing else was pending.
    case deferred(until: UnixSeconds, reason: DeferralReason)
    /// Held until `until`, replacing an older held update, which is dropped.
    case coalesced(until: UnixSeconds, reason: DeferralReason)
    /// Over budget in strict mode: refused; a token is back at `retryAt`.
    case refusedOverBudget(retryAt: UnixSeconds)
    /// Older than the newest data the activity has (applied, or held when this one would be held too).
    case ignoredStale(last: UnixSeconds)
    /// The activity ended at `endedAt`; it takes no more updates.
    case rejectedEnded(endedAt: UnixSeconds)
    /// Attributes + content state would be `bytes` long, over `limit`.
    case rejectedTooLarge(bytes: Int, limit: Int)
    /// A number in the update is NaN or infinite.
    case rejectedInvalid(field: String)

    /// The push-record outcome word: `applied`, `deferred`, `ignored` (older than the newest data, or
    /// after the end, which ActivityKit ignores) or `rejected` (over budget in strict mode, too large, invalid).
    package var recordOutcome: String {
        switch self {
        case .applied: return "applied"
        case .deferred, .coalesced: return "deferred"
        case .ignoredStale, .rejectedEnded: return "ignored"
        case .refusedOverBudget, .rejectedTooLarge, .rejectedInvalid: return "rejected"
        }
    }
}

/// What the emulated device did with an end request.
package enum ActivityEndOutcome: Sendable, Hashable {
    /// Ended now; leaves the Lock Screen at `dismissAt` (already `dismissed` when that is now).
    case ended(dismissAt: UnixSeconds)
    /// The end's timestamp is older than the last applied update.
    case ignoredStale(last: UnixSeconds)
    /// Already ended at `endedAt`.
    case rejectedEnded(endedAt: UnixSeconds)
    /// The final content would make attributes + content state `bytes` long, over `limit`.
    case rejectedTooLarge(bytes: Int, limit: Int)
    /// A number in the request is NaN or infinite.
    case rejectedInvalid(field: String)
}
