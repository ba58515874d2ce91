/// How time moves an alarm: its next deadline and the transitions due by a given instant, plus the
/// state-entering helpers the operations share.
extension Alarm {
    /// The next instant at which time alone changes the alarm: the start of the pre-alert
    /// countdown (or the alert itself, without preAlert) while `scheduled`, the fire date while
    /// `countdown`; nil while `paused`, `alerting` or removed, which only an operation changes.
    package var nextDeadline: UnixSeconds? {
        guard removedAt == nil else { return nil }
        switch state {
        case .scheduled:
            guard let alert = nextAlertAt else { return nil }
            if let preAlert = countdownDuration?.preAlert { return alert - preAlert }
            return alert
        case .countdown:
            if case .countdown(_, _, _, let fire)? = presentationState { return fire }
            return nextAlertAt
        case .paused, .alerting:
            return nil
        }
    }

    /// Applies every transition due at or before `time`, in order, each stamped with its own
    /// instant: `scheduled` → `countdown` at alert − preAlert, `scheduled` → `alerting` at the
    /// alert without preAlert, `countdown` → `alerting` at the fire date. However far `time` jumps,
    /// the alarm ends at most at `alerting`, where it stays until an operation. A `time` before
    /// the next deadline changes nothing.
    package mutating func advance(to time: UnixSeconds) -> [AlarmTransition] {
        var transitions: [AlarmTransition] = []
        while let deadline = nextDeadline, deadline <= time {
            let previous = state
            switch state {
            case .scheduled:
                let alert = nextAlertAt ?? deadline
                if let preAlert = countdownDuration?.preAlert {
                    enterCountdown(total: preAlert, elapsed: 0, start: deadline, fire: alert)
                } else {
                    beginAlerting(at: deadline)
                }
            case .countdown:
                beginAlerting(at: deadline)
            case .paused, .alerting:
                return transitions
            }
            transitions.append(.stateChanged(from: previous, to: state, at: deadline))
        }
        return transitions
    }
}

// MARK: - Entering states

extension Alarm {
    /// Starts a cycle whose alert is at `alert`: `scheduled`, or already `countdown` when the
    /// pre-alert countdown should have started by `now` (counting only the time that remains).
    mutating func arm(alertAt alert: UnixSeconds, at now: UnixSeconds) {
        occurrenceAt = schedule == nil ? nil : alert
        hasAlerted = false
        if let preAlert = countdownDuration?.preAlert, alert - preAlert <= now {
            let elapsed = min(preAlert, max(0, preAlert - (alert - now)))
            enterCountdown(total: preAlert, elapsed: elapsed, start: now, fire: alert)
        } else {
            state = .scheduled
            nextAlertAt = alert
            let time = alertTime(for: alert)
            presentationState = .alert(hour: time.hour, minute: time.minute)
        }
    }

    /// Counts down from `start`, `elapsed` of `total` already gone, alerting at `fire`.
    mutating func enterCountdown(total: Double, elapsed: Double, start: UnixSeconds, fire: UnixSeconds) {
        state = .countdown
        nextAlertAt = fire
        presentationState = .countdown(
            totalCountdownDuration: total, previouslyElapsedDuration: elapsed, startDate: start, fireDate: fire)
    }

    /// Alerts from `instant` on, until an operation ends it.
    mutating func beginAlerting(at instant: UnixSeconds) {
        state = .alerting
        nextAlertAt = nil
        hasAlerted = true
        let time = alertTime(for: occurrenceAt ?? instant)
        presentationState = .alert(hour: time.hour, minute: time.minute)
    }

    /// Marks the alarm gone at `now`; it keeps its last state for the `alarm.removed` event.
    mutating func remove(at now: UnixSeconds) {
        removedAt = now
        nextAlertAt = nil
        presentationState = nil
    }

    /// The relative schedule's next occurrence strictly after `instant`; nil for other schedules.
    func nextOccurrence(after instant: UnixSeconds) -> UnixSeconds? {
        guard case .relative(let hour, let minute, let repeats)? = schedule else { return nil }
        let weekdays: [AlarmSchedule.Weekday]?
        switch repeats {
        case .never: weekdays = nil
        case .weekly(let days): weekdays = days
        }
        return AlarmCalendar.nextOccurrence(
            hour: hour, minute: minute, weekdays: weekdays, timeZone: timeZone, after: instant)
    }

    /// The time an alert at `instant` is for: a relative schedule's own hour and minute (even when
    /// daylight saving moved the instant), else the wall clock at `instant` in the alarm's zone.
    func alertTime(for instant: UnixSeconds) -> (hour: Int, minute: Int) {
        if case .relative(let hour, let minute, _)? = schedule { return (hour, minute) }
        return AlarmCalendar.wallTime(at: instant, timeZone: timeZone)
    }
}
