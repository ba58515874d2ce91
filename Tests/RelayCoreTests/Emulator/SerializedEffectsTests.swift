import RelayJSON
import XCTest

@testable import RelayCore

/// `EmulatorEffects.serialized()` gives exactly the bytes of serializing each JSON on its own,
/// however often a subject is shared between events, documents and push records.
final class SerializedEffectsTests: XCTestCase {
    private let start: UnixSeconds = 1_767_225_600
    private let bundle = "com.example.app"

    private func push(_ token: String, _ aps: JSONValue) throws -> LiveActivityPushRequest {
        let headers: [(name: String, value: String)] = [
            ("apns-push-type", "liveactivity"), ("apns-topic", bundle + ".push-type.liveactivity"),
            ("apns-priority", "10"),
        ]
        let body = JSONValue.object(["aps": aps]).serialized()
        return try LiveActivityPushRequest.validate(
            method: "POST", path: "/3/device/" + token, headers: APNsHeaderFields(headers), body: body,
            parseJSON: { try JSONValue(parsing: $0) }, authenticate: { _ in nil }, authorizeBundle: { _ in nil }
        ).get()
    }

    private func assertMatchesEachJSON(_ effects: EmulatorEffects, file: StaticString = #filePath, line: UInt = #line) {
        let serialized = effects.serialized()
        XCTAssertEqual(serialized.events, effects.events.map { $0.data.serialized() }, file: file, line: line)
        XCTAssertEqual(serialized.documents, effects.documents.map { $0.body?.serialized() }, file: file, line: line)
        XCTAssertEqual(serialized.pushRecords, effects.pushRecords.map { $0.json.serialized() }, file: file, line: line)
    }

    private func assertActivitiesMatchTheirJSON(
        _ emulator: DeviceEmulator, file: StaticString = #filePath, line: UInt = #line
    ) {
        for activity in emulator.activities.values {
            XCTAssertEqual(activity.serializedJSON(), activity.json.serialized(), file: file, line: line)
        }
    }

    func testBatchesOfStartsPushesEndsAndAlarmsMatchTheirJSON() throws {
        var emulator = DeviceEmulator(rules: .defaults, ids: SeededIdentifiers(seed: 3), now: start)
        let devices = (0..<3).map { _ in emulator.createDevice(keyHash: "k", at: start) }
        var tokens: [String] = []
        for (index, device) in devices.enumerated() {
            let activity = try emulator.startActivity(
                body: [
                    "deviceId": .string(device.id), "bundleId": .string(bundle), "attributesType": "A",
                    "attributes": ["name": .string("π \(index) \"quoted\"\n")], "contentState": ["n": 0],
                    "pushType": "token",
                ], at: start)
            tokens.append(try XCTUnwrap(activity.pushToken))
        }
        _ = try emulator.scheduleAlarm(
            body: [
                "deviceId": .string(devices[0].id), "bundleId": .string(bundle), "countdownDuration": ["preAlert": 600],
                "presentation": ["alert": ["title": "t"]],
            ], at: start)
        assertMatchesEachJSON(emulator.takeEffects())

        // Several pushes to the same activities in one batch: events see earlier states than the document.
        for step in 1...36 {
            let token = tokens[step % tokens.count]
            let aps: JSONValue = [
                "event": "update", "timestamp": .number(start + Double(step)),
                "content-state": ["n": .int(Int64(step)), "text": .string("\u{2028}step \(step)")],
            ]
            let context = PushContext(
                apnsId: "apns-\(step)", uniqueId: "unique-\(step)", headers: ["x": "y"], payload: aps)
            _ = emulator.deliver(try push(token, aps), context: context, at: start + Double(step))
        }
        let end: JSONValue = [
            "event": "end", "timestamp": .number(start + 10), "content-state": ["n": 9],
            "dismissal-date": .number(start + 60),
        ]
        let context = PushContext(apnsId: "apns-end", uniqueId: "unique-end", headers: [:], payload: end)
        _ = emulator.deliver(try push(tokens[0], end), context: context, at: start + 10)
        _ = emulator.deliver(try push(tokens[0], end), context: context, at: start + 11)
        let pushes = emulator.takeEffects()
        XCTAssertGreaterThan(pushes.events.count, 40)
        XCTAssertEqual(pushes.pushRecords.count, 38)
        XCTAssertTrue(pushes.pushRecords.contains { $0.outcome == .deferred }, "the budget is spent: updates are held")
        XCTAssertTrue(emulator.activities.values.contains { $0.pendingUpdate != nil })
        assertMatchesEachJSON(pushes)
        assertActivitiesMatchTheirJSON(emulator)

        emulator.advance(to: start + 9 * 3600)
        let advanced = emulator.takeEffects()
        XCTAssertFalse(advanced.events.isEmpty)
        assertMatchesEachJSON(advanced)
        assertActivitiesMatchTheirJSON(emulator)
    }

    func testActivityBytesMatchTheirJSONWithEveryCounterDistinct() throws {
        var emulator = DeviceEmulator(rules: .defaults, ids: SeededIdentifiers(seed: 5), now: start)
        let device = emulator.createDevice(keyHash: "k", at: start)
        var activity = try emulator.startActivity(
            body: [
                "deviceId": .string(device.id), "bundleId": .string(bundle), "attributesType": "A", "attributes": [:],
                "contentState": ["n": 0.5],
            ], at: start)
        activity.counters = ActivityCounters()
        (activity.counters.applied, activity.counters.deferred, activity.counters.coalesced) = (1, 2, 3)
        (activity.counters.discarded, activity.counters.ignoredStale) = (4, 5)
        (activity.counters.refusedOverBudget, activity.counters.rejected) = (6, 7)
        XCTAssertEqual(activity.serializedJSON(), activity.json.serialized())
    }

    func testActivityBytesMatchTheirJSONWithEveryFixedMemberSet() {
        for (channelId, attributes) in [
            (String?.some("ch-\u{1}\"1"), JSONValue.object(["a": ["b": [1, 2.5, "\u{7f}"]], "z": .null])),
            (nil, JSONValue.object([:])),
        ] {
            let startedAt = start + 0.123456
            let activity = LiveActivity(
                id: "id \"1\"", deviceId: "dé\\v", bundleId: "com.example.ü", attributesType: "Type\n",
                attributes: attributes,
                contentState: ["n": 1], state: .stale, staleDate: start + 5, relevanceScore: 0.25, pushToken: "ab",
                channelId: channelId, startedAt: startedAt, systemEndAt: startedAt + 28_800, endedAt: start + 60,
                dismissAt: start + 120, lastTimestamp: start + 1.5,
                updateBudget: UpdateBudget(frequentPushesEnabled: true, rules: .defaults, at: start),
                pendingUpdate: nil, counters: ActivityCounters())
            XCTAssertEqual(activity.serializedJSON(), activity.json.serialized(), "\(String(describing: channelId))")
        }
    }

    func testPushRecordBytesMatchTheirJSON() {
        let base = PushRecord(apnsId: "a", uniqueId: "u", receivedAt: start + 0.5, outcome: .applied)
        var withChannel = base
        withChannel.channelId = "c"
        withChannel.token = "ignored when a channel is set"
        var full = base
        full.token = "t"
        full.bundleId = "b"
        full.activityId = "act"
        full.headers = ["apns-topic": "x", "Zeta": "\"quoted\"\n", "é": "\u{2028}", "a": ""]
        full.payload = ["aps": ["event": "update", "n": 1.25]]
        full.status = 410
        full.reason = "Unregistered"
        full.outcome = .rejected
        full.hint = "h"
        full.responseBody = ["reason": "Unregistered", "timestamp": 1]
        var payloadText = base
        payloadText.payload = .string("not json")
        payloadText.receivedAt = start
        for record in [base, withChannel, full, payloadText] {
            XCTAssertEqual(record.serializedJSON(), record.json.serialized(), "\(record)")
        }
    }

    func testEventDataKeepsItsPrecedenceOverExtraMembers() {
        let cases: [(deviceId: String?, subjectKey: String, extra: JSONObject)] = [
            (nil, "activity", [:]),
            ("d", "activity", ["reason": "ended"]),
            // The usual shapes, written without sorting: every subject key, with and without cause.
            ("d", "activity", ["cause": "push"]), (nil, "activity", ["cause": "app"]), ("d", "alarm", [:]),
            (nil, "alarm", ["cause": 1]), ("d", "push", [:]), (nil, "push", ["cause": "x"]),
            ("d", "push", ["cause": "x", "other": 1]), ("d", "activity", ["causes": "x"]), ("d", "Activity", [:]),
            (nil, "push", ["deviceId": "from-extra", "seq": 99, "zz": [1, 2], "Type": true]),
            ("d", "seq", ["at": "x", "type": "y", "deviceId": "z"]),
            ("d", "deviceId", ["é": 1, "e": 2, "dz": 3, "": .null]),
        ]
        for (deviceId, subjectKey, extra) in cases {
            var effects = EmulatorEffects()
            effects.append(
                RelayEvent(
                    seq: 42, type: .activityUpdated, at: start + 0.25, deviceId: deviceId, subjectKey: subjectKey,
                    subject: ["id": "s", "n": 1.5], extra: extra))
            let event = effects.events[0]
            XCTAssertEqual(effects.serialized().events, [event.data.serialized()], "\(subjectKey) \(extra)")
        }
    }
}
