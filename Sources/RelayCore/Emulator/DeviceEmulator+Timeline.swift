// MARK: - Time

extension DeviceEmulator {
    /// Moves the emulator to `time`, applying every timed transition that falls due on the way
    /// (stale dates, the 8-hour end, dismissals, held updates released, alarm countdowns and alerts)
    /// in time order across all activities and alarms, each stamped with its own time, however far
    /// `time` jumps. A `time` earlier than `now` changes nothing.
    public mutating func advance(to time: UnixSeconds) {
        guard time.isFinite else { return }
        advancing = true
        defer { advancing = false }
        while let due = deadlines.popDue(atOrBefore: time) {
            switch due.subject {
            case .activity(let position):
                activities[position: position].advance(to: due.time, rules: rules, into: &transitionScratch)
                let snapshot = saveActivity(at: position)
                for transition in transitionScratch { emit(transition, activity: snapshot) }
                transitionScratch.removeAll(keepingCapacity: true)
            case .alarm(let id):
                guard var alarm = alarms[id] else {
                    deadlines.schedule(due.subject, at: nil)
                    continue
                }
                let transitions = alarm.advance(to: due.time)
                save(alarm)
                for transition in transitions { emit(transition, alarm: alarm) }
            }
        }
        if time > now { now = time }
    }

    /// The time of the next timed transition, if any (the server arms its timer with it).
    package mutating func nextDeadline() -> UnixSeconds? { deadlines.peek()?.time }

    /// Records the event of one activity transition; `snapshot` is the activity as `save` recorded it.
    mutating func emit(_ transition: ActivityTransition, activity snapshot: ActivitySnapshot) {
        switch transition {
        case .becameStale(let at):
            emit(.activityStale, activity: snapshot, at: at)
        case .deferredUpdateApplied(let at, _):
            emit(.activityUpdated, activity: snapshot, at: at, extra: Cause.deferredUpdateReleased)
        case .deferredUpdateDiscarded(let at, _):
            emit(.activityUpdated, activity: snapshot, at: at, extra: Cause.deferredUpdateDiscarded)
        case .endedBySystem(let at):
            emit(.activityEnded, activity: snapshot, at: at, extra: Cause.lifetimeExceeded)
        case .dismissed(let at):
            emit(.activityDismissed, activity: snapshot, at: at)
        }
    }

    /// Records the event of one alarm transition.
    mutating func emit(_ transition: AlarmTransition, alarm: Alarm) {
        switch transition {
        case .stateChanged(_, _, let at):
            emit(.alarmUpdated, alarm: alarm, at: at)
        case .removed(let at):
            emit(.alarmRemoved, alarm: alarm, at: at)
        }
    }
}
