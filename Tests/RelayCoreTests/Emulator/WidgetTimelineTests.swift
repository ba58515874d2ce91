import RelayJSON
import XCTest

@testable import RelayCore

/// A device's widget timeline: what each entry shows, its relevance and reload policy, the
/// family's item count, and the `timeline.reload` a command records.
final class WidgetTimelineTests: XCTestCase {
    private let start: UnixSeconds = 1_767_225_600

    private func emulator() -> DeviceEmulator {
        DeviceEmulator(rules: .defaults, ids: SeededIdentifiers(seed: 3), now: start)
    }

    @discardableResult
    private func startActivity(
        _ emulator: inout DeviceEmulator, device: String, score: Double = 0, stale: Double? = nil,
        at time: UnixSeconds? = nil
    ) throws -> LiveActivity {
        var body: JSONObject = [
            "deviceId": .string(device), "bundleId": "com.example.app", "attributesType": "A", "attributes": [:],
            "contentState": ["n": 0], "relevanceScore": .number(score),
        ]
        if let stale { body["staleDate"] = .number(stale) }
        return try emulator.startActivity(body: .object(body), at: time ?? start)
    }

    @discardableResult
    private func scheduleTimer(_ emulator: inout DeviceEmulator, device: String, seconds: Double) throws -> Alarm {
        try emulator.scheduleAlarm(
            body: [
                "deviceId": .string(device), "bundleId": "com.example.tea",
                "countdownDuration": ["preAlert": .number(seconds)],
                "presentation": ["alert": ["title": "Tea"]],
            ], at: start)
    }

    /// What the device shows, as the emulator holds it: activity and alarm ids to states.
    private func shown(_ emulator: DeviceEmulator, device: String) -> [String: String] {
        var states: [String: String] = [:]
        for activity in emulator.activities.values where activity.deviceId == device && activity.state != .dismissed {
            states[activity.id] = activity.state.rawValue
        }
        for alarm in emulator.alarms.values where alarm.deviceId == device { states[alarm.id] = alarm.state.rawValue }
        return states
    }

    /// Running the real emulator to each entry's date reaches the state the entry shows, every
    /// transition inside the horizon has its entry, and the policy's date is its next deadline.
    func testEachEntryIsWhatTheEmulatorReachesAtItsDate() throws {
        var emulator = emulator()
        let device = emulator.createDevice(keyHash: "k", at: start).id
        let other = emulator.createDevice(keyHash: "o", at: start).id
        try startActivity(&emulator, device: device, score: 40, stale: start + 1200)
        let ending = try startActivity(&emulator, device: device, score: 10)
        _ = try emulator.endActivity(
            id: ending.id, body: ["dismissalPolicy": ["after": .number(start + 5400)]], at: start)
        try scheduleTimer(&emulator, device: device, seconds: 150)
        try startActivity(&emulator, device: other, stale: start + 60)
        _ = emulator.takeEffects()

        let timeline = try emulator.widgetTimeline(
            deviceId: device, family: .systemLarge, until: start + 7200, at: start)
        XCTAssertEqual(
            timeline.entries.map { $0.date - start }, [0, 30, 90, 150, 1200, 5400],
            "now, the timer's minutes counted back from its alert, the alert, stale, the dismissal")
        XCTAssertEqual(timeline.policy, .after(start + 8 * 3600), "the system end: minutes are not changes")
        var real = emulator
        var changes: [UnixSeconds] = []
        for entry in timeline.entries {
            real.advance(to: entry.date)
            changes += real.takeEffects().events.filter { $0.deviceId == device }.map(\.at)
            XCTAssertEqual(
                Dictionary(uniqueKeysWithValues: entry.items.map { ($0.id, $0.state) }), shown(real, device: device),
                "entry at +\(entry.date - start)")
        }
        XCTAssertTrue(Set(changes).isSubset(of: Set(timeline.entries.map(\.date))), "\(changes)")
        real.advance(to: start + 7200)
        XCTAssertTrue(real.takeEffects().events.filter { $0.deviceId == device }.isEmpty)
        XCTAssertEqual(real.nextDeadline(), start + 8 * 3600, "the real next change")
        XCTAssertEqual(shown(emulator, device: device).count, 3, "the timeline changed nothing")
    }

    /// The policy: `after` the next deadline past the horizon, `atEnd` when the last entry is the
    /// last deadline, `never` with nothing scheduled; in the last hour of a lifetime and in a
    /// countdown an entry a minute, `remaining` whole minutes.
    func testPoliciesAndMinuteEntries() throws {
        var emulator = emulator()
        let device = emulator.createDevice(keyHash: "k", at: start).id
        XCTAssertEqual(
            try emulator.widgetTimeline(deviceId: device, family: .systemSmall, until: nil, at: start).policy, .never)

        let activity = try startActivity(&emulator, device: device)
        let late = try emulator.widgetTimeline(
            deviceId: device, family: .systemSmall, until: nil, at: start + 7.5 * 3600)
        XCTAssertEqual(late.entries.count, 32, "now, each minute to the end, the end, the dismissal")
        XCTAssertEqual(late.entries[30].date, start + 8 * 3600)
        XCTAssertEqual(late.entries[30].items.first?.state, "ended")
        XCTAssertNil(late.entries[30].items.first?.remaining)
        XCTAssertEqual(late.entries[1].items.first?.remaining, 29 * 60)
        XCTAssertEqual(late.entries.last?.date, start + 12 * 3600)
        XCTAssertEqual(late.entries.last?.items, [])
        XCTAssertEqual(late.policy, .atEnd, "the dismissal is the last change")

        _ = try emulator.endActivity(
            id: activity.id, body: ["dismissalPolicy": ["after": .number(start + 600)]], at: start)
        let ended = try emulator.widgetTimeline(deviceId: device, family: .systemSmall, until: nil, at: start)
        XCTAssertEqual(ended.entries.map { $0.date - start }, [0, 600])
        XCTAssertEqual(ended.entries.last?.items, [])
        XCTAssertEqual(ended.policy, .atEnd)
        let short = try emulator.widgetTimeline(deviceId: device, family: .systemSmall, until: start + 300, at: start)
        XCTAssertEqual(short.entries.map(\.date), [start])
        XCTAssertEqual(short.policy, .after(start + 600))
    }

    /// Relevance: an activity's score (half while stale), an alarm's closeness to its alert; the
    /// family decides how many items and whether they carry details; each has its deep link.
    func testRelevanceFamiliesAndLinks() throws {
        var emulator = emulator()
        let device = emulator.createDevice(keyHash: "k", at: start).id
        for score in [10.0, 90, 30, 50, 70] { try startActivity(&emulator, device: device, score: score) }
        let stale = try startActivity(&emulator, device: device, score: 80, stale: start)
        let timer = try scheduleTimer(&emulator, device: device, seconds: 1800)
        let small = try emulator.widgetTimeline(deviceId: device, family: .systemSmall, until: start, at: start)
        let medium = try emulator.widgetTimeline(deviceId: device, family: .systemMedium, until: start, at: start)
        let large = try emulator.widgetTimeline(deviceId: device, family: .systemLarge, until: start, at: start)
        XCTAssertEqual(small.entries[0].items.map(\.relevance), [90])
        XCTAssertEqual(medium.entries[0].items.map(\.relevance), [90, 70, 70, 50], "the timer 30 minutes out: 70")
        XCTAssertEqual(large.entries[0].items.map(\.relevance), [90, 70, 70, 50, 40, 30, 10])
        XCTAssertEqual(large.entries[0].relevance, 90)
        XCTAssertEqual(large.entries[0].items.first { $0.id == stale.id }?.relevance, 40)
        XCTAssertNil(small.entries[0].items[0].details)
        XCTAssertEqual(medium.entries[0].items[0].details?["contentState"], ["n": 0])
        let alarm = try XCTUnwrap(medium.entries[0].items.first { $0.kind == .alarm })
        XCTAssertEqual(alarm.url, "activityrelay://alarm/\(timer.id)")
        XCTAssertEqual(alarm.remaining, 1800)
        XCTAssertEqual(small.entries[0].items[0].url, "activityrelay://activity/\(small.entries[0].items[0].id)")
        XCTAssertEqual(
            small.json["policy"], ["after": .number(start + 1800)], "the timer's alert, past `until`")
    }

    /// Bad horizons and unknown devices are refused with the emulator's errors.
    func testRefusals() throws {
        var emulator = emulator()
        let device = emulator.createDevice(keyHash: "k", at: start).id
        for until in [start - 1, start + 24 * 3600 + 1, .nan, .infinity] {
            XCTAssertThrowsError(
                try emulator.widgetTimeline(deviceId: device, family: .systemSmall, until: until, at: start)
            ) { error in XCTAssertEqual((error as? EmulatorError)?.status, 400, "\(until)") }
        }
        XCTAssertThrowsError(try emulator.widgetTimeline(deviceId: "x", family: .systemSmall, until: nil, at: start)) {
            XCTAssertEqual(($0 as? EmulatorError)?.status, 404)
        }
    }

    /// Commands that change a device's future record one `timeline.reload` for it when effects
    /// are taken; time passing, a push token and a refused call record none.
    func testCommandsRecordReloadsAndTimeDoesNot() throws {
        var emulator = emulator()
        let device = emulator.createDevice(keyHash: "k", at: start).id
        let other = emulator.createDevice(keyHash: "o", at: start).id
        XCTAssertEqual(emulator.takeEffects().events.map(\.type), [])
        let activity = try startActivity(&emulator, device: device, stale: start + 60)
        try startActivity(&emulator, device: device)
        try scheduleTimer(&emulator, device: other, seconds: 60)
        let events = emulator.takeEffects().events
        let reloads = events.filter { $0.type == .timelineReload }
        XCTAssertEqual(reloads.map(\.deviceId), [device, other], "one per device, in the order changed")
        XCTAssertEqual(events.last?.type, .timelineReload)
        XCTAssertEqual(reloads.first?.data["timeline"]?["path"], .string("/v1/devices/\(device)/timeline"))

        emulator.advance(to: start + 120)
        let timed = emulator.takeEffects().events.map(\.type)
        XCTAssertEqual(timed, [.activityStale, .alarmUpdated])

        _ = try? emulator.updateActivity(id: activity.id, body: ["contentState": "not an object"], at: start + 120)
        XCTAssertEqual(emulator.takeEffects().events.map(\.type), [])
        _ = try emulator.updateActivity(id: activity.id, body: ["contentState": ["n": 1]], at: start + 120)
        XCTAssertEqual(emulator.takeEffects().events.map(\.type), [.activityUpdated, .timelineReload])
    }

    /// A push held for later moves the future without an event of its own: it records a reload,
    /// and the timeline has an entry at its release. A push the device ignores records none.
    func testAHeldPushRecordsAReloadAndAnIgnoredOneDoesNot() throws {
        var emulator = emulator()
        let device = emulator.createDevice(keyHash: "k", at: start).id
        let started = try emulator.startActivity(
            body: [
                "deviceId": .string(device), "bundleId": "com.example.app", "attributesType": "A", "attributes": [:],
                "contentState": ["n": 0], "pushType": "token",
            ], at: start)
        let token = try XCTUnwrap(emulator.activities[started.id]?.pushToken)
        _ = emulator.takeEffects()
        func push(_ n: Int, timestamp: Double, priority: String) throws -> [RelayEventType] {
            let payload: JSONValue = [
                "aps": ["event": "update", "timestamp": .number(timestamp), "content-state": ["n": .int(Int64(n))]]
            ]
            let headers: [(name: String, value: String)] = [
                ("apns-push-type", "liveactivity"), ("apns-topic", "com.example.app.push-type.liveactivity"),
                ("apns-priority", priority),
            ]
            let request = try LiveActivityPushRequest.validate(
                method: "POST", path: "/3/device/" + token, headers: APNsHeaderFields(headers),
                body: payload.serialized(), parseJSON: { try JSONValue(parsing: $0) }, authenticate: { _ in nil },
                authorizeBundle: { _ in nil }
            ).get()
            let context = PushContext(apnsId: "a", uniqueId: "u", headers: [:], payload: payload)
            _ = emulator.deliver(request, context: context, at: start + 10)
            return emulator.takeEffects().events.map(\.type)
        }
        XCTAssertEqual(try push(1, timestamp: start + 10, priority: "5"), [.pushReceived, .timelineReload])
        let timeline = try emulator.widgetTimeline(
            deviceId: device, family: .systemMedium, until: start + 60, at: start + 10)
        XCTAssertEqual(timeline.entries.map { $0.date - start }, [10, 25], "the release after lowPriorityDelay")
        XCTAssertEqual(timeline.entries.last?.items.first?.details?["contentState"], ["n": 1])
        XCTAssertEqual(try push(2, timestamp: start - 100, priority: "10"), [.pushReceived], "older: ignored")
    }

    /// Minute ticks are counted back from the end and always move forward, even when the time
    /// they start from is one a float subtraction left a hair short of a whole minute.
    func testMinuteTicks() {
        let end: UnixSeconds = 1_767_225_600.3
        var time = end - 3 * 60 - 0.5
        var ticks: [UnixSeconds] = []
        while let tick = DeviceEmulator.minuteTick(before: end, after: time, within: .infinity) {
            XCTAssertGreaterThan(tick, time)
            ticks.append(tick)
            time = tick
        }
        XCTAssertEqual(ticks.map { ((end - $0) / 60).rounded() }, [3, 2, 1])
        XCTAssertEqual(DeviceEmulator.minuteTick(before: end, after: end - 7200, within: 3600), end - 3600)
        XCTAssertNil(DeviceEmulator.minuteTick(before: end, after: end - 60, within: 3600))
    }
}
