import RelayCore
import RelayJSON

/// The `snapshot` event a subscriber gets when it is too far behind the durable log: the current
/// activities (not yet dismissed) and alarms its filter matches, in the app API's shapes, with the
/// relay's clock.
enum StreamSnapshot {
    /// Reads the state and the sequence number it corresponds to in one critical section, so the
    /// live events that follow the snapshot are exactly those after it.
    static func make(service: RelayService, filter: EventFilter) -> EventHub.Snapshot {
        let clock = service.clock.json
        return service.read { emulator in of(emulator, filter: filter, clock: clock) }
    }

    /// The snapshot of `emulator`'s state that `filter` matches, with `clock` (the clock's JSON).
    static func of(_ emulator: DeviceEmulator, filter: EventFilter, clock: JSONValue) -> EventHub.Snapshot {
        EventHub.Snapshot(
            seq: emulator.nextSeq - 1,
            members: members(
                activities: activities(emulator, filter), alarms: alarms(emulator, filter), filter: filter,
                clock: clock))
    }

    /// The snapshot's members for `activities` and `alarms` (each in its order, already matched
    /// to `filter`), which may come from several devices' emulators (cluster mode).
    static func members(activities: [LiveActivity], alarms: [Alarm], filter: EventFilter, clock: JSONValue)
        -> JSONObject
    {
        var members: JSONObject = [
            "at": clock["now"] ?? .null, "clock": clock,
            "activities": .array(wantsActivities(filter) ? activities.map(\.json) : []),
            "alarms": .array(wantsAlarms(filter) ? alarms.map(\.json) : []),
        ]
        if let deviceId = filter.deviceId { members["deviceId"] = .string(deviceId) }
        return members
    }

    /// Activities on screen (dismissed ones have left it) that `filter` matches, oldest first.
    static func activities(_ emulator: DeviceEmulator, _ filter: EventFilter) -> [LiveActivity] {
        guard filter.alarmId == nil else { return [] }
        return emulator.activities.values.filter { activity in
            activity.state != .dismissed && (filter.deviceId.map { $0 == activity.deviceId } ?? true)
                && (filter.bundleId.map { $0 == activity.bundleId } ?? true)
                && (filter.activityId.map { $0 == activity.id } ?? true)
        }
        .sorted(by: startOrder)
    }

    /// Oldest first, by start time then id.
    static func startOrder(_ first: LiveActivity, _ second: LiveActivity) -> Bool {
        (first.startedAt, first.id) < (second.startedAt, second.id)
    }

    /// Alarms that `filter` matches, by id.
    static func alarms(_ emulator: DeviceEmulator, _ filter: EventFilter) -> [Alarm] {
        guard filter.activityId == nil else { return [] }
        return emulator.alarms.values.filter { alarm in
            (filter.deviceId.map { $0 == alarm.deviceId } ?? true)
                && (filter.bundleId.map { $0 == alarm.bundleId } ?? true)
                && (filter.alarmId.map { $0 == alarm.id } ?? true)
        }
        .sorted { $0.id < $1.id }
    }

    private static func wantsActivities(_ filter: EventFilter) -> Bool {
        filter.types.map { $0.contains { $0.rawValue.hasPrefix("activity.") } } ?? true
    }

    private static func wantsAlarms(_ filter: EventFilter) -> Bool {
        filter.types.map { $0.contains { $0.rawValue.hasPrefix("alarm.") } } ?? true
    }
}
