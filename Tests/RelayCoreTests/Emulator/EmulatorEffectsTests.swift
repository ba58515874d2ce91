import RelayCore
import RelayJSON
import XCTest

/// The effects a command leaves: event subjects and document bodies are the JSON of the object as
/// it was when recorded, and each document is written once with its last state.
final class EmulatorEffectsTests: XCTestCase {
    private let t0: UnixSeconds = 1_767_225_600

    private func startBody(deviceId: String) -> JSONValue {
        [
            "deviceId": .string(deviceId), "bundleId": "com.example.app", "attributesType": "DeliveryAttributes",
            "attributes": ["order": "42"], "contentState": ["n": 0], "pushType": "token",
        ]
    }

    func testSubjectsAndBodiesAreTheJSONAsRecorded() throws {
        var emulator = DeviceEmulator(rules: .defaults, ids: SeededIdentifiers(seed: 7), now: t0)
        let device = emulator.createDevice(keyHash: "k", at: t0)
        _ = emulator.takeEffects()
        let activity = try emulator.startActivity(body: startBody(deviceId: device.id), at: t0)
        let effects = emulator.takeEffects()

        XCTAssertEqual(effects.events.map(\.type), [.activityStarted, .activityPushToken, .timelineReload])
        let started = try XCTUnwrap(effects.events.first?.subject)
        XCTAssertEqual(started["pushToken"], .null, "the started event shows the activity before its token")
        XCTAssertEqual(effects.events[1].subject, activity.json)
        XCTAssertEqual(effects.documents.count, 1)
        XCTAssertEqual(effects.documents.first?.body, activity.json)
        XCTAssertEqual(effects.documents.first?.state, "active")
    }

    /// An activity's events and document name its device, bundle and ID (read from the activity
    /// they carry), in every state it goes through; an alarm's name the alarm instead.
    func testActivityAndAlarmEffectsNameTheirSubject() throws {
        var emulator = DeviceEmulator(rules: .defaults, ids: SeededIdentifiers(seed: 7), now: t0)
        let device = emulator.createDevice(keyHash: "k", at: t0)
        let other = emulator.createDevice(keyHash: "k", at: t0)
        _ = try emulator.startActivity(body: startBody(deviceId: other.id), at: t0)
        _ = emulator.takeEffects()
        let activity = try emulator.startActivity(body: startBody(deviceId: device.id), at: t0)
        var effects = [emulator.takeEffects()]
        _ = try emulator.updateActivity(id: activity.id, body: ["contentState": ["n": 1]], at: t0 + 60)
        effects.append(emulator.takeEffects())
        let unknownToken = String(repeating: "ab", count: 40)
        for token in [try XCTUnwrap(activity.pushToken), unknownToken] {
            let aps: JSONValue = ["event": "update", "timestamp": .number(t0 + 90), "content-state": ["n": 2]]
            let request = try LiveActivityPushRequest.validate(
                method: "POST", path: "/3/device/" + token,
                headers: APNsHeaderFields([
                    ("apns-push-type", "liveactivity"), ("apns-topic", "com.example.app.push-type.liveactivity"),
                ]),
                body: JSONValue.object(["aps": aps]).serialized(), authenticate: { _ in nil },
                authorizeBundle: { _ in nil }
            ).get()
            let context = PushContext(apnsId: "a", uniqueId: "u", headers: [:], payload: aps)
            _ = emulator.deliver(request, context: context, at: t0 + 90)
        }
        let pushed = emulator.takeEffects()
        effects.append(pushed)
        let received = pushed.events.filter { $0.type == .pushReceived }
        XCTAssertEqual(received.map(\.subjectKey), ["push", "push"])
        XCTAssertEqual(received.map(\.deviceId), [device.id, nil])
        XCTAssertEqual(received.map(\.activityId), [activity.id, nil])
        XCTAssertEqual(received.map(\.bundleId), ["com.example.app", "com.example.app"])
        XCTAssertEqual(received.map(\.alarmId), [nil, nil])
        XCTAssertEqual(received.map { $0.data["push"]?["apnsId"] }, [.string("a"), .string("a")])
        XCTAssertEqual(received.first?.data["deviceId"], .string(device.id))
        // The records to log are those the events carry, in order: the applied push, then the refusal.
        XCTAssertEqual(pushed.pushRecords.map(\.token), [activity.pushToken, unknownToken])
        XCTAssertEqual(pushed.pushRecords.map(\.status), [200, 400])
        XCTAssertEqual(effects[0].pushRecords, [])
        _ = try emulator.endActivity(id: activity.id, body: ["dismissalPolicy": "immediate"], at: t0 + 120)
        effects.append(emulator.takeEffects())
        _ = try emulator.scheduleAlarm(
            body: [
                "deviceId": .string(device.id), "bundleId": "com.example.app", "countdownDuration": ["preAlert": 60],
                "presentation": ["alert": ["title": "t"]],
            ], at: t0 + 180)
        effects.append(emulator.takeEffects())

        let events = effects.flatMap(\.events)
        let activityEvents = events.filter { $0.subjectKey == "activity" }
        XCTAssertEqual(
            activityEvents.map(\.type),
            [
                .activityStarted, .activityPushToken, .activityUpdated, .activityUpdated, .activityEnded,
                .activityDismissed,
            ]
        )
        for event in activityEvents {
            XCTAssertEqual(event.deviceId, device.id, "\(event.type)")
            XCTAssertEqual(event.bundleId, "com.example.app", "\(event.type)")
            XCTAssertEqual(event.activityId, activity.id, "\(event.type)")
            XCTAssertNil(event.alarmId, "\(event.type)")
            XCTAssertEqual(event.data["deviceId"], .string(device.id), "\(event.type)")
            XCTAssertEqual(event.data["activity"]?["id"], .string(activity.id), "\(event.type)")
        }
        let documents = effects.flatMap(\.documents).filter { $0.kind == .activity }
        XCTAssertEqual(documents.map(\.state), ["active", "active", "active", "dismissed"])
        for document in documents {
            XCTAssertEqual(document.id, activity.id)
            XCTAssertEqual(document.deviceId, device.id)
            XCTAssertEqual(document.bundleId, "com.example.app")
            XCTAssertEqual(document.body?["state"], document.state.map(JSONValue.string))
        }
        let alarmEvent = try XCTUnwrap(events.first { $0.subjectKey == "alarm" })
        XCTAssertNotNil(alarmEvent.alarmId)
        XCTAssertNil(alarmEvent.activityId)
        XCTAssertEqual(alarmEvent.deviceId, device.id)
        XCTAssertEqual(alarmEvent.data["alarm"]?["id"], alarmEvent.alarmId.map(JSONValue.string))
    }

    /// Two pushes to one activity in one batch of effects: each event shows the activity as that
    /// push left it, and its one document the last state.
    func testEventsOfOneBatchKeepTheirOwnState() throws {
        var emulator = DeviceEmulator(rules: .defaults, ids: SeededIdentifiers(seed: 7), now: t0)
        let device = emulator.createDevice(keyHash: "k", at: t0)
        let activity = try emulator.startActivity(body: startBody(deviceId: device.id), at: t0)
        _ = emulator.takeEffects()
        let token = try XCTUnwrap(activity.pushToken)
        for n in 1...2 {
            let aps: JSONValue = [
                "event": "update", "timestamp": .number(t0 + Double(n)), "content-state": ["n": .int(Int64(n))],
            ]
            let request = try LiveActivityPushRequest.validate(
                method: "POST", path: "/3/device/" + token,
                headers: APNsHeaderFields([
                    ("apns-push-type", "liveactivity"), ("apns-topic", "com.example.app.push-type.liveactivity"),
                    ("apns-priority", "10"),
                ]),
                body: JSONValue.object(["aps": aps]).serialized(), authenticate: { _ in nil },
                authorizeBundle: { _ in nil }
            ).get()
            let context = PushContext(apnsId: "a", uniqueId: "u\(n)", headers: [:], payload: aps)
            XCTAssertEqual(emulator.deliver(request, context: context, at: t0 + Double(n)).status, 200)
        }
        let effects = emulator.takeEffects()
        let updated = effects.events.filter { $0.type == .activityUpdated }
        XCTAssertEqual(updated.map { $0.subject["contentState"] }, [["n": 1], ["n": 2]])
        XCTAssertEqual(effects.documents.map { $0.body?["contentState"] }, [["n": 2]])
    }

    /// Pushes to two activities in one batch: one document each, in the order first touched, with
    /// each activity's last state (documents are told apart by the activity, not by their state).
    func testTwoActivitiesInOneBatchWriteOneDocumentEach() throws {
        var emulator = DeviceEmulator(rules: .defaults, ids: SeededIdentifiers(seed: 7), now: t0)
        let device = emulator.createDevice(keyHash: "k", at: t0)
        let first = try emulator.startActivity(body: startBody(deviceId: device.id), at: t0)
        let second = try emulator.startActivity(body: startBody(deviceId: device.id), at: t0)
        _ = emulator.takeEffects()
        for (n, activity) in [first, first, second, first].enumerated() {
            let aps: JSONValue = [
                "event": "update", "timestamp": .number(t0 + Double(n + 1)),
                "content-state": ["n": .int(Int64(n + 1))],
            ]
            let request = try LiveActivityPushRequest.validate(
                method: "POST", path: "/3/device/" + XCTUnwrap(activity.pushToken),
                headers: APNsHeaderFields([
                    ("apns-push-type", "liveactivity"), ("apns-topic", "com.example.app.push-type.liveactivity"),
                    ("apns-priority", "10"),
                ]),
                body: JSONValue.object(["aps": aps]).serialized(), authenticate: { _ in nil },
                authorizeBundle: { _ in nil }
            ).get()
            let context = PushContext(apnsId: "a", uniqueId: "u\(n)", headers: [:], payload: aps)
            XCTAssertEqual(emulator.deliver(request, context: context, at: t0 + Double(n + 1)).status, 200)
        }
        let documents = emulator.takeEffects().documents
        XCTAssertEqual(documents.map(\.id), [first.id, second.id])
        XCTAssertEqual(documents.map { $0.body?["contentState"] }, [["n": 4], ["n": 3]])
        XCTAssertEqual(documents.map(\.kind), [.activity, .activity])
    }

    /// A request's payload changed after validation (whole, or one member in place) is what the
    /// device shows: the update the request carries follows its payload.
    func testAChangedPayloadIsWhatTheDeviceShows() throws {
        var emulator = DeviceEmulator(rules: .defaults, ids: SeededIdentifiers(seed: 7), now: t0)
        let device = emulator.createDevice(keyHash: "k", at: t0)
        let activity = try emulator.startActivity(body: startBody(deviceId: device.id), at: t0)
        let token = try XCTUnwrap(activity.pushToken)
        var request = try LiveActivityPushRequest.validate(
            method: "POST", path: "/3/device/" + token,
            headers: APNsHeaderFields([
                ("apns-push-type", "liveactivity"), ("apns-topic", "com.example.app.push-type.liveactivity"),
            ]),
            body: JSONValue.object([
                "aps": ["event": "update", "timestamp": .number(t0 + 1), "content-state": ["n": 1]]
            ])
            .serialized(),
            authenticate: { _ in nil }, authorizeBundle: { _ in nil }
        ).get()
        request.payload = LiveActivityPayload(
            event: .update, timestamp: t0 + 1, contentState: ["n": 2], staleDate: t0 + 60)
        let context = PushContext(apnsId: "a", uniqueId: "u", headers: [:], payload: .null)
        XCTAssertEqual(emulator.deliver(request, context: context, at: t0 + 1).status, 200)
        XCTAssertEqual(emulator.activities[activity.id]?.contentState, ["n": 2])
        XCTAssertEqual(emulator.activities[activity.id]?.staleDate, t0 + 60)

        request.payload.contentState = ["n": 3]
        request.payload.timestamp = t0 + 2
        XCTAssertEqual(emulator.deliver(request, context: context, at: t0 + 2).status, 200)
        XCTAssertEqual(emulator.activities[activity.id]?.contentState, ["n": 3])
    }

    func testRecordedEventsEqualTheSameEventBuiltFromJSON() throws {
        var emulator = DeviceEmulator(rules: .defaults, ids: SeededIdentifiers(seed: 7), now: t0)
        let device = emulator.createDevice(keyHash: "k", at: t0)
        _ = try emulator.startActivity(body: startBody(deviceId: device.id), at: t0)
        let recorded = try XCTUnwrap(emulator.takeEffects().events.last)
        let rebuilt = RelayEvent(
            seq: recorded.seq, type: recorded.type, at: recorded.at, deviceId: recorded.deviceId,
            bundleId: recorded.bundleId, activityId: recorded.activityId, subjectKey: recorded.subjectKey,
            subject: recorded.subject, extra: recorded.extra)
        XCTAssertEqual(recorded, rebuilt)
        XCTAssertEqual(recorded.hashValue, rebuilt.hashValue)
        let changed = RelayEvent(
            seq: recorded.seq, type: recorded.type, at: recorded.at, deviceId: recorded.deviceId,
            bundleId: recorded.bundleId, activityId: recorded.activityId, subjectKey: recorded.subjectKey,
            subject: ["id": "other"], extra: recorded.extra)
        XCTAssertNotEqual(recorded, changed)
    }

    func testManyDocumentsKeepFirstTouchedOrderAndLastState() throws {
        var emulator = DeviceEmulator(rules: .defaults, ids: SeededIdentifiers(seed: 7), now: t0)
        let devices = (0..<12).map { _ in emulator.createDevice(keyHash: "k", at: t0) }
        for device in [devices[0], devices[11]] {
            _ = try emulator.updateAppSettings(
                deviceId: device.id, bundleId: "com.example.app", body: ["frequentPushesEnabled": true], at: t0)
        }
        let documents = emulator.takeEffects().documents
        XCTAssertEqual(documents.map(\.id), devices.map(\.id))
        for index in [0, 11] {
            XCTAssertEqual(
                documents[index].body?["apps"]?["com.example.app"]?["frequentPushesEnabled"], .bool(true))
        }
        XCTAssertEqual(documents[5].body, emulator.devices[devices[5].id]?.storedJSON)
    }
}
