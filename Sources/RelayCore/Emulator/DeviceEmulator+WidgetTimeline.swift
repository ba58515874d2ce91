import RelayJSON

// MARK: - Widget timelines (WidgetKit's TimelineProvider)

extension DeviceEmulator {
    /// The timeline of `deviceId` for a widget of `family`, from `time` (or the emulator's `now`,
    /// if later) to `until` (default 8 hours on, at most 24).
    ///
    /// The device's future is not modelled a second time: its activities and alarms are copied
    /// into an emulator of their own (`projection(of:)`), which `advance(to:)` runs through the
    /// real transition rules, deadline by deadline, from its deadline queue. What each entry shows
    /// is that copy's state at the entry's date, so it is what the stream will report by then
    /// unless a push or an app call changes the future (which records `timeline.reload`).
    ///
    /// 1. An entry at the start, and at every deadline up to `until` (deadlines at one time make
    ///    one entry).
    /// 2. An entry at each whole minute before an alarm's countdown fires, and before an
    ///    activity's system end in its last `WidgetTimeline.lifetimeCountdown` seconds: counted
    ///    back from that moment, so `remaining` is a whole number of minutes.
    /// 3. The policy: `after(d)` when the next deadline `d` lies past `until`, otherwise `atEnd`
    ///    when there was a deadline before it, otherwise `never`.
    package func widgetTimeline(
        deviceId: String, family: WidgetFamily, until: UnixSeconds?, at time: UnixSeconds
    ) throws(EmulatorError) -> WidgetTimeline {
        try widgetProjection(deviceId: deviceId).timeline(family: family, until: until, at: time)
    }

    /// What `widgetTimeline` needs of the emulator, taken apart from it: a server takes this
    /// under its lock and runs the rest outside, so minute entries never hold up a push.
    package func widgetProjection(deviceId: String) throws(EmulatorError) -> WidgetProjection {
        guard devices[deviceId] != nil else { throw .notFound("device", deviceId) }
        return WidgetProjection(deviceId: deviceId, emulator: projection(of: deviceId))
    }

    /// An emulator holding only `deviceId`'s device, its activities not yet dismissed and its
    /// alarms, each with its deadline, as `restore` schedules them: running it on changes nothing
    /// here.
    func projection(of deviceId: String) -> DeviceEmulator {
        var copy = DeviceEmulator(rules: rules, ids: ids, now: now, nextSeq: nextSeq)
        copy.devices[deviceId] = devices[deviceId]
        for position in 0..<activities.count where activities[position: position].deviceId == deviceId {
            let activity = activities[position: position]
            guard activity.state != .dismissed else { continue }
            let stored = copy.activities.store(activity)
            copy.deadlines.schedule(.activity(stored), at: activity.nextDeadline)
        }
        for alarm in alarms.values where alarm.deviceId == deviceId {
            copy.alarms[alarm.id] = alarm
            copy.deadlines.schedule(.alarm(alarm.id), at: alarm.nextDeadline)
        }
        return copy
    }

    /// The next whole minute after `time` before a countdown's end (see `widgetTimeline`, rule 2).
    func nextCountdownTick(after time: UnixSeconds) -> UnixSeconds? {
        var next: UnixSeconds?
        func consider(_ tick: UnixSeconds?) {
            if let tick, next.map({ tick < $0 }) ?? true { next = tick }
        }
        for activity in activities.values where activity.state == .active || activity.state == .stale {
            consider(Self.minuteTick(before: activity.systemEndAt, after: time, within: lifetimeCountdown))
        }
        for alarm in alarms.values {
            if case .countdown(_, _, _, let fire)? = alarm.presentationState, alarm.state == .countdown {
                consider(Self.minuteTick(before: fire, after: time, within: .infinity))
            }
        }
        return next
    }

    /// The last-hour window, shorter when the rules make the lifetime shorter.
    private var lifetimeCountdown: Double { min(WidgetTimeline.lifetimeCountdown, rules.activeLifetime) }

    /// The earliest `end - k minutes` (k ≥ 1, at most `within` before `end`) after `time`.
    static func minuteTick(before end: UnixSeconds, after time: UnixSeconds, within window: Double) -> UnixSeconds? {
        let remaining = end - time
        guard remaining > 60 else { return nil }
        var minutes = min((remaining / 60).rounded(.up) - 1, (window / 60).rounded(.down))
        if end - minutes * 60 <= time { minutes -= 1 }
        return minutes >= 1 ? end - minutes * 60 : nil
    }

    // MARK: - Entries

    /// The entry at `now`: every activity not dismissed and every alarm, the most relevant first
    /// (ties: activities in Lock Screen order, then alarms by next alert), cut to the family's size.
    func widgetEntry(family: WidgetFamily) -> WidgetTimeline.Entry {
        var items: [WidgetTimeline.Item] = []
        for activity in LiveActivity.ordered(activities.values) where activity.state != .dismissed {
            items.append(item(for: activity, details: family.showsDetails))
        }
        for alarm in listAlarms(deviceId: nil) { items.append(item(for: alarm, details: family.showsDetails)) }
        let ranked = items.enumerated().sorted { left, right in
            left.element.relevance != right.element.relevance
                ? left.element.relevance > right.element.relevance : left.offset < right.offset
        }.map(\.element)
        return WidgetTimeline.Entry(
            date: now, relevance: ranked.first?.relevance ?? 0, items: Array(ranked.prefix(family.maxItems)))
    }

    /// An activity's item. Relevance: its `relevanceScore` while active, half of it while stale,
    /// 0 once ended.
    private func item(for activity: LiveActivity, details: Bool) -> WidgetTimeline.Item {
        let relevance: Double
        switch activity.state {
        case .active: relevance = activity.relevanceScore
        case .stale: relevance = activity.relevanceScore / 2
        case .ended, .dismissed: relevance = 0
        }
        let left = activity.systemEndAt - now
        let counting = !activity.state.isOver && left <= lifetimeCountdown
        var members: JSONObject?
        if details {
            members = [
                "bundleId": .string(activity.bundleId), "attributesType": .string(activity.attributesType),
                "attributes": activity.attributes, "contentState": activity.contentState,
                "endsAt": .number(activity.endedAt ?? activity.systemEndAt),
            ]
            if let staleDate = activity.staleDate { members?["staleDate"] = .number(staleDate) }
            if let dismissAt = activity.dismissAt { members?["dismissAt"] = .number(dismissAt) }
        }
        return WidgetTimeline.Item(
            kind: .activity, id: activity.id, state: activity.state.rawValue, relevance: relevance,
            remaining: counting ? left : nil, details: members)
    }

    /// An alarm's item. Relevance: 100 while alerting; while it is due to alert, 100 less a point
    /// for each minute until the alert (0 from 100 minutes away); 0 while paused.
    private func item(for alarm: Alarm, details: Bool) -> WidgetTimeline.Item {
        var relevance = 0.0
        if alarm.state == .alerting {
            relevance = 100
        } else if let alert = alarm.nextAlertAt {
            relevance = max(0, 100 - (alert - now) / 60)
        }
        var remaining: Double?
        if alarm.state == .countdown, case .countdown(_, _, _, let fire)? = alarm.presentationState {
            remaining = fire - now
        }
        var members: JSONObject?
        if details {
            members = ["bundleId": .string(alarm.bundleId), "presentation": alarm.presentation]
            if let presentation = alarm.presentationState { members?["presentationState"] = presentation.json }
            if let alert = alarm.nextAlertAt { members?["nextAlertAt"] = .number(alert) }
        }
        return WidgetTimeline.Item(
            kind: .alarm, id: alarm.id, state: alarm.state.rawValue, relevance: relevance, remaining: remaining,
            details: members)
    }
}

/// One device's activities and alarms in an emulator of their own (see
/// `DeviceEmulator.widgetProjection(deviceId:)`), from which its widget timeline is made.
package struct WidgetProjection: Sendable {
    /// The device.
    package let deviceId: String
    let emulator: DeviceEmulator

    /// The timeline from `time` (or the projection's `now`, if later) to `until`; see
    /// `DeviceEmulator.widgetTimeline` for the rules.
    package func timeline(
        family: WidgetFamily, until: UnixSeconds?, at time: UnixSeconds
    ) throws(EmulatorError) -> WidgetTimeline {
        var projection = emulator
        projection.advance(to: time)
        let start = projection.now
        let latest = start + WidgetTimeline.maxHorizon
        let horizon = until ?? start + WidgetTimeline.defaultHorizon
        guard horizon.isFinite, horizon >= start, horizon <= latest else {
            throw .invalid(
                "until must be Unix seconds from now (\(start.plainText)) to 24 hours on (\(latest.plainText)), "
                    + "not \(horizon.plainText)")
        }
        var entries = [projection.widgetEntry(family: family)]
        var reached = start
        // Each step reaches a later deadline or minute; the cap only guards against a rule that
        // would reschedule a deadline at the time it fell due.
        var steps = 0
        while steps < 100_000 {
            steps += 1
            let change = projection.nextDeadline()
            let tick = projection.nextCountdownTick(after: reached)
            guard let next = [change, tick].compactMap({ $0 }).min(), next <= horizon else { break }
            projection.advance(to: next)
            if next > reached {
                entries.append(projection.widgetEntry(family: family))
                reached = next
            }
        }
        let policy: WidgetTimeline.ReloadPolicy
        if let change = projection.nextDeadline() {
            policy = .after(change)
        } else {
            policy = entries.count > 1 ? .atEnd : .never
        }
        return WidgetTimeline(deviceId: deviceId, family: family, until: horizon, entries: entries, policy: policy)
    }
}
