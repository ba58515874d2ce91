import Foundation
import RelayCore
import RelayJSON
import RelayNet
import RelayServer
import RelayTestKit
import XCTest

/// Every kind of write the relay accepts — each app API and provider API mutation, each delete
/// and each timed transition — then a stop and a start on the same data directory: the state read
/// back is identical, and startup never meets a row it cannot read.
final class RestartRoundTripTests: XCTestCase {
    private var relay: LiveRelay?
    private let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("relay-test-\(UUID().uuidString)")
    private static let bundle = "com.example.app"
    private static let topic = "com.example.app.push-type.liveactivity"

    override func tearDown() {
        relay?.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    private func start() throws -> LiveRelay {
        let started = try LiveRelay(directory: directory) { $0.clockMode = .virtual }
        relay = started
        return started
    }

    private func push(_ relay: LiveRelay, token: String, _ aps: JSONValue, priority: Int = 10) throws {
        try relay.provider(
            "POST", "/3/device/\(token)",
            headers: [
                "apns-topic: \(Self.topic)", "apns-push-type: liveactivity", "apns-priority: \(priority)",
            ], body: JSONValue.object(["aps": aps]).jsonString, expect: 200)
    }

    /// Everything a client can read back, through the app API, plus the push log.
    private func readBack(_ api: AppAPIClient, ids: [String]) throws -> [JSONValue] {
        var paths = ["/v1/devices", "/v1/activities", "/v1/alarms", "/v1/clock", "/v1/pushes?limit=1000"]
        paths += ids
        return try paths.map { try api.expect(200, "GET", $0) }
    }

    func testEveryKindOfWriteReadsBackIdenticallyAfterARestart() throws {
        let first = try start()
        let api = AppAPIClient(relay: first)
        // App API: devices, settings, push-to-start tokens.
        let device = try api.expect(201, "POST", "/v1/devices")
        let deviceId = try XCTUnwrap(device["deviceId"]?.stringValue)
        let settings = "/v1/devices/\(deviceId)/apps/\(Self.bundle)"
        try api.expect(200, "PUT", settings, json: ["frequentPushesEnabled": true])
        try api.expect(
            200, "PUT", "/v1/devices/\(deviceId)/apps/com.example.off", json: ["liveActivitiesEnabled": false])
        let startToken = try XCTUnwrap(
            try api.expect(
                201, "POST", settings + "/push-to-start-tokens", json: ["attributesType": "DeliveryAttributes"])[
                    "token"]?.stringValue)
        var now = try XCTUnwrap(try api.expect(200, "GET", "/v1/clock")["now"]?.doubleValue)

        // Provider API: a channel kept, a channel deleted, a broadcast, device pushes of every event.
        let created = #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#
        let kept = try XCTUnwrap(
            try first.provider("POST", "/1/apps/\(Self.bundle)/channels", body: created, expect: 201))
        let deleted = try XCTUnwrap(
            try first.provider("POST", "/1/apps/\(Self.bundle)/channels", body: created, expect: 201))
        try first.provider(
            "DELETE", "/1/apps/\(Self.bundle)/channels", headers: ["apns-channel-id: \(deleted)"], expect: 204)

        let activityBody: (JSONValue) -> JSONValue = { pushType in
            [
                "deviceId": .string(deviceId), "bundleId": .string(Self.bundle), "attributesType": "DeliveryAttributes",
                "attributes": ["order": "42"], "contentState": ["status": "preparing"], "pushType": pushType,
            ]
        }
        let tokened = try api.expect(201, "POST", "/v1/activities", json: activityBody("token"))
        let tokenedId = try XCTUnwrap(tokened["id"]?.stringValue)
        let token = try XCTUnwrap(tokened["pushToken"]?.stringValue)
        let subscribed = try api.expect(201, "POST", "/v1/activities", json: activityBody(["channel": .string(kept)]))
        let subscribedId = try XCTUnwrap(subscribed["id"]?.stringValue)
        let local = try api.expect(
            201, "POST", "/v1/activities",
            json: activityBody("token").merging(["staleDate": .number(now + 600)]))
        let localId = try XCTUnwrap(local["id"]?.stringValue)
        try api.expect(
            200, "POST", "/v1/activities/\(localId)/update",
            json: ["contentState": ["status": "cooking"], "staleDate": .number(now + 600)])
        let ended = try api.expect(201, "POST", "/v1/activities", json: activityBody("token"))
        let endedId = try XCTUnwrap(ended["id"]?.stringValue)
        try api.expect(200, "POST", "/v1/activities/\(endedId)/end", json: ["dismissalPolicy": "default"])

        try push(
            first, token: token,
            ["event": "update", "timestamp": .number(now.rounded(.down) + 1), "content-state": ["status": "p10"]])
        try push(
            first, token: token,
            ["event": "update", "timestamp": .number(now.rounded(.down) + 2), "content-state": ["status": "p5"]],
            priority: 5)
        try push(
            first, token: startToken,
            [
                "event": "start", "timestamp": .number(now.rounded(.down)), "content-state": ["status": "remote"],
                "attributes-type": "DeliveryAttributes", "attributes": ["order": "7"],
                "alert": ["title": "Order", "body": "accepted"],
            ])
        try first.provider(
            "POST", "/4/broadcasts/apps/\(Self.bundle)",
            headers: ["apns-push-type: LiveActivity", "apns-priority: 10", "apns-channel-id: \(kept)"],
            body: JSONValue.object([
                "aps": ["event": "update", "timestamp": .number(now.rounded(.down) + 3), "content-state": ["score": 1]]
            ]).jsonString, expect: 200)
        let pushEnded = try api.expect(201, "POST", "/v1/activities", json: activityBody("token"))
        try push(
            first, token: try XCTUnwrap(pushEnded["pushToken"]?.stringValue),
            ["event": "end", "timestamp": .number(now.rounded(.down) + 4), "dismissal-date": .number(now + 7200)])

        // Alarms: every operation, and a cancel that deletes.
        let alarmBody: (JSONObject) -> JSONValue = { extra in
            var body: JSONObject = [
                "deviceId": .string(deviceId), "bundleId": "com.example.wake",
                "presentation": ["alert": ["title": "Wake up", "stopButton": ["text": "Stop"]]],
            ]
            for (key, value) in extra { body[key] = value }
            return .object(body)
        }
        let timer = try api.expect(201, "POST", "/v1/alarms", json: alarmBody(["countdownDuration": ["preAlert": 300]]))
        let timerId = try XCTUnwrap(timer["id"]?.stringValue)
        try api.expect(200, "POST", "/v1/alarms/\(timerId)/pause")
        try api.expect(200, "POST", "/v1/alarms/\(timerId)/resume")
        let fixed = try api.expect(
            201, "POST", "/v1/alarms", json: alarmBody(["schedule": ["fixed": .number(now + 60)]]))
        let fixedId = try XCTUnwrap(fixed["id"]?.stringValue)
        let cancelled = try api.expect(
            201, "POST", "/v1/alarms", json: alarmBody(["schedule": ["fixed": .number(now + 3600)]]))
        let cancelledId = try XCTUnwrap(cancelled["id"]?.stringValue)
        try api.expect(200, "POST", "/v1/alarms/\(cancelledId)/cancel")

        // Timed transitions: the priority-5 release, the stale date, the fixed alarm alerting (then
        // stopped), the ended activity's dismissal, the 8-hour end; then the clock's rate.
        try api.expect(200, "POST", "/v1/clock", json: ["advanceBy": 900])
        try api.expect(200, "POST", "/v1/alarms/\(fixedId)/stop")
        try api.expect(200, "POST", "/v1/clock", json: ["advanceBy": .number(9 * 3600)])
        try api.expect(200, "POST", "/v1/clock", json: ["rate": 0])
        now = try XCTUnwrap(try api.expect(200, "GET", "/v1/clock")["now"]?.doubleValue)

        let ids = [
            "/v1/devices/\(deviceId)", settings, "/v1/activities/\(tokenedId)", "/v1/activities/\(subscribedId)",
            "/v1/activities/\(localId)", "/v1/activities/\(endedId)", "/v1/alarms/\(timerId)",
        ]
        let before = try readBack(api, ids: ids)
        XCTAssertEqual(before[1]["items"]?.arrayValue?.count, 6, "\(before[1])")
        let lastSeq = try first.runtime.service.store.reader.latestEventSeq()
        let events = try first.runtime.service.store.reader.events(after: 0, limit: 10_000).map(\.type)
        for type in ["activity.stale", "activity.dismissed", "activity.ended", "alarm.removed", "activity.updated"] {
            XCTAssertTrue(events.contains(type), "\(type) in \(events)")
        }
        first.stop()

        let second = try start()
        let again = AppAPIClient(relay: second)
        XCTAssertEqual(try readBack(again, ids: ids), before)
        XCTAssertEqual(try second.runtime.service.store.reader.latestEventSeq(), lastSeq)
        try second.provider(
            "GET", "/1/apps/\(Self.bundle)/channels", headers: ["apns-channel-id: \(kept)"], expect: 200)
        try second.provider(
            "GET", "/1/apps/\(Self.bundle)/channels", headers: ["apns-channel-id: \(deleted)"], expect: 400)
        for removed in [cancelledId, fixedId] {
            XCTAssertEqual(try again.expect(404, "GET", "/v1/alarms/\(removed)")["error"], "notFound")
        }
    }
}

extension JSONValue {
    /// This object with `extra`'s members added.
    fileprivate func merging(_ extra: JSONObject) -> JSONValue {
        var members = objectValue ?? [:]
        for (key, value) in extra { members[key] = value }
        return .object(members)
    }
}

extension RestartRoundTripTests {
    /// Runs `sql` on the stopped relay's database.
    private func edit(_ sql: String) throws {
        let database = directory.appendingPathComponent("relay.sqlite").path
        let outcome = try ChildProcess.run(
            [
                "python3", "-c",
                "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()",
                database, sql,
            ], timeout: 30)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
    }

    func testAStoredNullDocumentIsADeletedOneAndAnUnreadableRowIsNamed() throws {
        let first = try start()
        let device = try AppAPIClient(relay: first).expect(201, "POST", "/v1/devices")
        let deviceId = try XCTUnwrap(device["deviceId"]?.stringValue)
        first.stop()
        relay = nil
        try edit("INSERT INTO documents (kind, id, bundle_id, body) VALUES ('channel', 'gone', 'com.a', 'null')")
        let second = try start()
        try AppAPIClient(relay: second).expect(200, "GET", "/v1/devices/\(deviceId)")
        second.stop()
        relay = nil

        try edit(
            "UPDATE documents SET body = '{\"id\":1}', event_seq = NULL, body_offset = NULL, body_length = NULL"
                + " WHERE kind = 'device'")
        XCTAssertThrowsError(try start()) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("table documents, row (kind device, id \(deviceId))"), text)
            XCTAssertFalse(text.contains("cannot start on"), text)
            XCTAssertTrue(text.contains("the listen address is not at fault"), text)
        }
    }
}
