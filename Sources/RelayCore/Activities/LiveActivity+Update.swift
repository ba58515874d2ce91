package import RelayJSON

// MARK: - Updates and the end

extension LiveActivity {
    /// Applies, holds or refuses `update` arriving at `now`, and says which.
    ///
    /// The rules, checked in this order:
    /// 1. after the end → `rejectedEnded`; a NaN or infinite number → `rejectedInvalid`;
    /// 2. a timestamp (default `now`) in an earlier whole second than `lastTimestamp` → `ignoredStale`
    ///    (the same second is applied: push timestamps are whole seconds, see `WholeSeconds`);
    /// 3. attributes + content state over `maxActivityDataBytes` → `rejectedTooLarge`;
    /// 4. app updates are applied and never draw on the budget;
    /// 5. priority-10 pushes draw a token: within budget → `applied`; over budget → held until the next
    ///    token (`deferred`, or `coalesced` when it replaces a held one), or `refusedOverBudget` in strict mode;
    /// 6. lower priorities never draw: held `lowPriorityDelay`, then applied. A later low-priority update
    ///    replaces the held one but keeps its release time, so a steady stream is still shown every delay.
    ///
    /// Only the latest state is held: a held update older than the one being held instead is dropped, and
    /// one that would be held but is older than the held one is `ignoredStale`. Applying an update drops a
    /// held one that is not newer. The activity is first brought up to `now` with `advance(to:)`; call
    /// `advance` yourself before to observe the transitions that are due (they are not reported here).
    package mutating func update(
        _ update: ActivityUpdate, source: ActivityUpdateSource, frequentPushesEnabled: Bool, rules: RelayRules,
        at now: UnixSeconds
    ) -> ActivityUpdateOutcome {
        _ = advance(to: now, rules: rules)
        if let endedAt {
            counters.rejected += 1
            return .rejectedEnded(endedAt: endedAt)
        }
        if let field = update.nonFiniteField {
            counters.rejected += 1
            return .rejectedInvalid(field: field)
        }
        let timestamp = update.timestamp ?? now
        if WholeSeconds.isEarlier(timestamp, than: lastTimestamp) {
            counters.ignoredStale += 1
            return .ignoredStale(last: lastTimestamp)
        }
        let bytes = attributesBytes + update.contentStateBytes
        if bytes > rules.maxActivityDataBytes {
            counters.rejected += 1
            return .rejectedTooLarge(bytes: bytes, limit: rules.maxActivityDataBytes)
        }
        setFrequentPushesEnabled(frequentPushesEnabled, rules: rules, at: now)
        switch source {
        case .app:
            apply(update, timestamp: timestamp, at: now)
            return .applied
        case .push where source.drawsOnBudget:
            if updateBudget.take(at: now) {
                apply(update, timestamp: timestamp, at: now)
                return .applied
            }
            let tokenAt = updateBudget.availableAt(now)
            if rules.strictBudget {
                counters.refusedOverBudget += 1
                return .refusedOverBudget(retryAt: tokenAt)
            }
            return hold(update, timestamp: timestamp, releaseAt: tokenAt, reason: .budget)
        case .push:
            return hold(
                update, timestamp: timestamp, releaseAt: now + max(0, rules.lowPriorityDelay), reason: .lowPriority)
        }
    }

    /// Ends the activity at `now`, from the app (`Activity.end`) or an `end` push.
    ///
    /// Already ended → `rejectedEnded`; a `timestamp` (default `now`) in an earlier whole second than
    /// `lastTimestamp` → `ignoredStale`; final `content` (nil keeps the current) over the size limit → `rejectedTooLarge`.
    /// Otherwise `endedAt = now` and `dismissAt` follows `dismissalPolicy` (see
    /// `DismissalPolicy.dismissAt`); when that is `now` the activity is `dismissed` at once.
    /// A held update is always dropped: if older than the end its data is superseded by the final
    /// content, and if newer it would arrive after the end, which ActivityKit ignores. Ending never
    /// draws on the update budget. The activity is first brought up to `now`, as in `update`.
    /// `contentShape`, when given, is `content`'s `ContentStateShape` fingerprint, taken when it was read.
    package mutating func end(
        content: JSONValue?, contentShape: UInt64? = nil, dismissalPolicy: DismissalPolicy, timestamp: UnixSeconds?,
        rules: RelayRules, at now: UnixSeconds
    ) -> ActivityEndOutcome {
        _ = advance(to: now, rules: rules)
        if let endedAt { return .rejectedEnded(endedAt: endedAt) }
        if let timestamp, !timestamp.isFinite { return .rejectedInvalid(field: "timestamp") }
        if case .after(let date) = dismissalPolicy, !date.isFinite { return .rejectedInvalid(field: "dismissalDate") }
        let timestamp = timestamp ?? now
        if WholeSeconds.isEarlier(timestamp, than: lastTimestamp) { return .ignoredStale(last: lastTimestamp) }
        if let content {
            let bytes = dataBytes(contentState: content)
            if bytes > rules.maxActivityDataBytes {
                return .rejectedTooLarge(bytes: bytes, limit: rules.maxActivityDataBytes)
            }
            show(content, shape: contentShape)
        }
        lastTimestamp = timestamp
        dropPending()
        let dismissal = dismissalPolicy.dismissAt(endedAt: now, startedAt: startedAt, rules: rules)
        endedAt = now
        dismissAt = dismissal
        state = dismissal <= now ? .dismissed : .ended
        return .ended(dismissAt: dismissal)
    }

    /// Shows `update` as of `now`: content, stale date (replaced; active again unless already past),
    /// relevance (kept when nil) and timestamp. A held update that is not newer becomes obsolete.
    mutating func apply(_ update: ActivityUpdate, timestamp: UnixSeconds, at now: UnixSeconds) {
        show(update.contentState, shape: update.contentStateShape)
        staleDate = update.staleDate
        if let score = update.relevanceScore { relevanceScore = score }
        lastTimestamp = timestamp
        state = staleDate.map { $0 <= now } == true ? .stale : .active
        counters.applied += 1
        if let pending = pendingUpdate, !WholeSeconds.isEarlier(timestamp, than: pending.timestamp) { dropPending() }
    }

    /// Drops the held update, if any, counting it.
    mutating func dropPending() {
        guard pendingUpdate != nil else { return }
        pendingUpdate = nil
        counters.discarded += 1
    }

    /// Holds `update` until `releaseAt`, replacing (coalescing) an older held update.
    private mutating func hold(
        _ update: ActivityUpdate, timestamp: UnixSeconds, releaseAt: UnixSeconds, reason: DeferralReason
    ) -> ActivityUpdateOutcome {
        guard let pending = pendingUpdate else {
            pendingUpdate = PendingUpdate(update: update, timestamp: timestamp, releaseAt: releaseAt, reason: reason)
            counters.deferred += 1
            return .deferred(until: releaseAt, reason: reason)
        }
        if WholeSeconds.isEarlier(timestamp, than: pending.timestamp) {
            counters.ignoredStale += 1
            return .ignoredStale(last: pending.timestamp)
        }
        var release = releaseAt
        if reason == .lowPriority, pending.reason == .lowPriority { release = min(release, pending.releaseAt) }
        dropPending()
        pendingUpdate = PendingUpdate(update: update, timestamp: timestamp, releaseAt: release, reason: reason)
        counters.coalesced += 1
        return .coalesced(until: release, reason: reason)
    }
}
