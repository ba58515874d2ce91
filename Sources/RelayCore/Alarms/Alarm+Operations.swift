/// The person's and the app's operations on an alarm, as `AlarmManager`'s `pause`, `resume`,
/// `countdown`, `stop` and `cancel`.
///
/// Each operation is atomic: it first applies whatever time made due by `now` (see
/// `advance(to:)`), then the operation itself, and returns all resulting transitions in order. If
/// the operation is not allowed it throws and the alarm is left exactly as it was, so the caller's
/// own `advance(to: now)` still reports what time did.
extension Alarm {
    /// Pauses a running countdown, keeping the time elapsed so far. Only from `countdown`.
    package mutating func pause(at now: UnixSeconds) throws(AlarmError) -> [AlarmTransition] {
        try perform("pause", at: now) { alarm throws(AlarmError) in
            guard alarm.state == .countdown,
                case .countdown(let total, let elapsed, let start, _)? = alarm.presentationState
            else { throw AlarmError.invalidState(current: alarm.state, operation: "pause") }
            let elapsedNow = min(total, elapsed + max(0, now - start))
            alarm.state = .paused
            alarm.nextAlertAt = nil
            alarm.presentationState = .paused(totalCountdownDuration: total, previouslyElapsedDuration: elapsedNow)
            return [.stateChanged(from: .countdown, to: .paused, at: now)]
        }
    }

    /// Resumes a paused countdown from `now` for the time that remained. Only from `paused`.
    package mutating func resume(at now: UnixSeconds) throws(AlarmError) -> [AlarmTransition] {
        try perform("resume", at: now) { alarm throws(AlarmError) in
            guard alarm.state == .paused, case .paused(let total, let elapsed)? = alarm.presentationState else {
                throw AlarmError.invalidState(current: alarm.state, operation: "resume")
            }
            alarm.enterCountdown(total: total, elapsed: elapsed, start: now, fire: now + (total - elapsed))
            return [.stateChanged(from: .paused, to: .countdown, at: now)]
        }
    }

    /// Snooze / repeat: counts down again for postAlert (else preAlert) seconds. Only from
    /// `alerting`; an alarm with neither duration throws `noCountdownDuration`.
    package mutating func countdown(at now: UnixSeconds) throws(AlarmError) -> [AlarmTransition] {
        try perform("countdown", at: now) { alarm throws(AlarmError) in
            guard alarm.state == .alerting else {
                throw AlarmError.invalidState(current: alarm.state, operation: "countdown")
            }
            guard let duration = alarm.countdownDuration?.snoozeDuration else {
                throw AlarmError.noCountdownDuration(id: alarm.id)
            }
            alarm.enterCountdown(total: duration, elapsed: 0, start: now, fire: now + duration)
            return [.stateChanged(from: .alerting, to: .countdown, at: now)]
        }
    }

    /// Ends the current cycle, from any state. A one-shot alarm (timer, fixed, relative `never`)
    /// is removed. A repeating alarm is rescheduled to its first occurrence after both `now` and
    /// the current cycle's alert, so stopping it while still `scheduled` skips that alert; it
    /// lands in `scheduled`, or `countdown` when that occurrence's pre-alert has already begun.
    package mutating func stop(at now: UnixSeconds) throws(AlarmError) -> [AlarmTransition] {
        try perform("stop", at: now) { alarm throws(AlarmError) in
            let previous = alarm.state
            guard alarm.isRepeating,
                let next = alarm.nextOccurrence(after: max(now, alarm.occurrenceAt ?? now))
            else {
                alarm.remove(at: now)
                return [.removed(at: now)]
            }
            alarm.arm(alertAt: next, at: now)
            return [.stateChanged(from: previous, to: alarm.state, at: now)]
        }
    }

    /// Removes the alarm whatever its state or schedule, repeating or not.
    package mutating func cancel(at now: UnixSeconds) throws(AlarmError) -> [AlarmTransition] {
        try perform("cancel", at: now) { alarm throws(AlarmError) in
            alarm.remove(at: now)
            return [.removed(at: now)]
        }
    }

    /// Runs `operation` on a copy advanced to `now`; commits only if it succeeds.
    private mutating func perform(
        _ name: String, at now: UnixSeconds, _ operation: (inout Alarm) throws(AlarmError) -> [AlarmTransition]
    ) throws(AlarmError) -> [AlarmTransition] {
        guard removedAt == nil else { throw AlarmError.alarmRemoved(id: id) }
        var next = self
        var transitions = next.advance(to: now)
        transitions += try operation(&next)
        self = next
        return transitions
    }
}
