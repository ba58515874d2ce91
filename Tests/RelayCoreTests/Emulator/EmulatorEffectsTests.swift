import RelayCore
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

        XCTAssertEqual(effects.events.map(\.type), [.activityStarted, .activityPushToken])
        let started = try XCTUnwrap(effects.events.first?.subject)
        XCTAssertEqual(started["pushToken"], .null, "the started event shows the activity before its token")
        XCTAssertEqual(effects.events.last?.subject, activity.json)
        XCTAssertEqual(effects.documents.count, 1)
        XCTAssertEqual(effects.documents.first?.body, activity.json)
        XCTAssertEqual(effects.documents.first?.state, "active")
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
        var changed = rebuilt
        changed.subject = ["id": "other"]
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
