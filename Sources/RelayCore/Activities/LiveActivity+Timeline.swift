// MARK: - Time passing

extension LiveActivity {
    /// One timed change, found by `nextStep`.
    private enum Step {
        case endBySystem(UnixSeconds)
        case release(UnixSeconds)
        case becomeStale(UnixSeconds)
        case dismiss(UnixSeconds)

        var at: UnixSeconds {
            switch self {
            case .endBySystem(let at), .release(let at), .becomeStale(let at), .dismiss(let at): return at
            }
        }
    }

    /// The earliest time something will happen on its own (stale, held update, system end, dismissal),
    /// or nil once dismissed: when the shell should call `advance(to:)` next.
    package var nextDeadline: UnixSeconds? { nextStep()?.at }

    /// Applies, in time order, every transition due at or before `time` and returns them, each stamped
    /// with its own time. Correct however far `time` jumps: a 20-hour jump yields stale, ended and
    /// dismissed in that order, and a held update that would be released after the system end is dropped.
    ///
    /// At equal times the system end comes first (an activity is active for less than `activeLifetime`:
    /// anything due exactly at `systemEndAt` finds it ended), then a held update, then the stale date (a released
    /// update may move it). A time before the next deadline changes nothing.
    package mutating func advance(to time: UnixSeconds, rules: RelayRules) -> [ActivityTransition] {
        var transitions: [ActivityTransition] = []
        advance(to: time, rules: rules, into: &transitions)
        return transitions
    }

    /// `advance(to:rules:)`, appending the transitions to `transitions`: the emulator passes a
    /// list it keeps for this, so the transitions of a push's arrival allocate no list of their own.
    mutating func advance(to time: UnixSeconds, rules: RelayRules, into transitions: inout [ActivityTransition]) {
        // Each step ends, dismisses, consumes the held update or marks stale; a budget release that finds no
        // token is rescheduled once to a time `take` accepts. So a handful of steps at most; the cap guards that.
        var steps = 0
        while let step = nextStep(), step.at <= time, steps < 16 {
            steps += 1
            switch step {
            case .endBySystem(let at):
                state = .ended
                endedAt = at
                dismissAt = DismissalPolicy.default.dismissAt(endedAt: at, startedAt: startedAt, rules: rules)
                transitions.append(.endedBySystem(at: at))
                if let pending = pendingUpdate {
                    dropPending()
                    transitions.append(.deferredUpdateDiscarded(at: at, update: pending.update))
                }
            case .dismiss(let at):
                state = .dismissed
                transitions.append(.dismissed(at: at))
            case .becomeStale(let at):
                state = .stale
                transitions.append(.becameStale(at: at))
            case .release(let at):
                if let transition = release(at: at, rules: rules) { transitions.append(transition) }
            }
        }
    }

    /// Releases the held update at `at`: draws its token when held for the budget (rescheduling it when
    /// none is there), then applies it, or drops it when newer data was applied meanwhile.
    private mutating func release(at: UnixSeconds, rules: RelayRules) -> ActivityTransition? {
        guard var pending = pendingUpdate else { return nil }
        guard !WholeSeconds.isEarlier(pending.timestamp, than: lastTimestamp) else {
            dropPending()
            return .deferredUpdateDiscarded(at: at, update: pending.update)
        }
        if pending.reason == .budget {
            updateBudget.configure(frequentPushesEnabled: updateBudget.frequentPushesEnabled, rules: rules, at: at)
            guard updateBudget.take(at: at) else {
                let next = updateBudget.availableAt(at)
                guard next.isFinite else {
                    dropPending()
                    return .deferredUpdateDiscarded(at: at, update: pending.update)
                }
                pending.releaseAt = max(next, at.nextUp)
                pendingUpdate = pending
                return nil
            }
        }
        pendingUpdate = nil
        apply(pending.update, timestamp: pending.timestamp, at: at)
        return .deferredUpdateApplied(at: at, update: pending.update)
    }

    /// The next timed change, with ties broken as `advance` documents.
    private func nextStep() -> Step? {
        switch state {
        case .dismissed:
            return nil
        case .ended:
            return dismissAt.map(Step.dismiss)
        case .active, .stale:
            var step = Step.endBySystem(systemEndAt)
            if let pending = pendingUpdate, pending.releaseAt < step.at { step = .release(pending.releaseAt) }
            if state == .active, let staleDate, staleDate < step.at { step = .becomeStale(staleDate) }
            return step
        }
    }
}
