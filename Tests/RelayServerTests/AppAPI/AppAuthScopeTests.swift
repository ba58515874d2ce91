import Foundation
import RelayCore
import RelayJSON
import RelayServer
import XCTest

/// A device key reaches only its own device: another device's objects answer exactly as missing
/// ones (`404`), admin-only requests are `403`, and lists are restricted to the key's device.
final class AppAuthScopeTests: XCTestCase {
    private var api: AppAPIHarness!
    private var a: (id: String, key: String)!
    private var b: (id: String, key: String)!
    private var activityOfB = ""
    private var alarmOfB = ""
    /// The test's own data directory, so that a test can reopen the store on it.
    private let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("app-api-\(UUID().uuidString)")

    override func setUpWithError() throws {
        api = try AppAPIHarness(directory: directory)
        a = api.createDevice()
        b = api.createDevice()
        activityOfB = api.startActivity(deviceId: b.id, key: b.key)
        let alarm = api.send("POST", "/v1/alarms", key: b.key, json: AppAPIHarness.alarmBody(deviceId: b.id))
        XCTAssertEqual(alarm.status, 201)
        alarmOfB = alarm["id"]?.stringValue ?? ""
    }

    override func tearDown() {
        api?.close()
        try? FileManager.default.removeItem(at: directory)
    }

    func testDeviceKeyCannotSeeOrChangeAnotherDevicesObjects() {
        let requests: [(String, String, JSONValue?)] = [
            ("GET", "/v1/devices/\(b.id)", nil),
            ("GET", "/v1/devices/\(b.id)/apps/com.example.wake", nil),
            ("PUT", "/v1/devices/\(b.id)/apps/com.example.wake", ["alarmAuthorization": "denied"]),
            ("POST", "/v1/devices/\(b.id)/apps/com.example.delivery/push-to-start-tokens", ["attributesType": "T"]),
            ("GET", "/v1/activities/\(activityOfB)", nil),
            ("POST", "/v1/activities/\(activityOfB)/update", ["contentState": ["status": "hijacked"]]),
            ("POST", "/v1/activities/\(activityOfB)/end", nil),
            ("POST", "/v1/activities", AppAPIHarness.startBody(deviceId: b.id)),
            ("GET", "/v1/alarms/\(alarmOfB)", nil),
            ("POST", "/v1/alarms/\(alarmOfB)/cancel", nil),
            ("POST", "/v1/alarms", AppAPIHarness.alarmBody(deviceId: b.id)),
        ]
        for (method, path, body) in requests {
            let reply = api.send(method, path, key: a.key, json: body)
            XCTAssertEqual(reply.status, 404, "\(method) \(path): \(reply.json)")
            XCTAssertEqual(reply.error, "notFound")
            // The same answer as for an object that does not exist at all.
            let missing = path.replacingOccurrences(of: b.id, with: "00000000-0000-4000-8000-000000000000")
                .replacingOccurrences(of: activityOfB, with: "00000000-0000-4000-8000-000000000001")
                .replacingOccurrences(of: alarmOfB, with: "00000000-0000-4000-8000-000000000002")
            if missing != path {
                XCTAssertEqual(api.send(method, missing, key: a.key, json: body).status, 404, "\(method) \(missing)")
            }
        }
        // Nothing changed on B.
        XCTAssertEqual(
            api.send("GET", "/v1/activities/\(activityOfB)", key: b.key)["contentState"], ["status": "preparing"])
        XCTAssertEqual(api.send("GET", "/v1/alarms/\(alarmOfB)", key: b.key).status, 200)
        XCTAssertEqual(api.send("GET", "/v1/devices/\(b.id)/apps/com.example.wake")["alarmAuthorization"], "authorized")
    }

    func testDeviceKeyReachesItsOwnDevice() {
        XCTAssertEqual(api.send("GET", "/v1/devices/\(b.id)", key: b.key).status, 200)
        XCTAssertEqual(api.send("GET", "/v1/activities/\(activityOfB)", key: b.key).status, 200)
        let update = api.send(
            "POST", "/v1/activities/\(activityOfB)/update", key: b.key, json: ["contentState": ["status": "on the way"]]
        )
        XCTAssertEqual(update.status, 200)
        XCTAssertEqual(api.send("POST", "/v1/alarms/\(alarmOfB)/cancel", key: b.key).status, 200)
    }

    func testListsAreRestrictedToTheKeysDevice() {
        _ = api.startActivity(deviceId: a.id, key: a.key)
        let mine = api.send("GET", "/v1/activities", key: a.key)
        XCTAssertEqual(mine.status, 200)
        XCTAssertEqual(mine["items"]?.arrayValue?.compactMap { $0["deviceId"]?.stringValue }, [a.id])
        XCTAssertEqual(api.send("GET", "/v1/alarms", key: a.key)["items"], [])
        XCTAssertEqual(api.send("GET", "/v1/devices", key: a.key)["items"]?.arrayValue?.count, 1)
        for path in [
            "/v1/activities?deviceId=\(b.id)", "/v1/alarms?deviceId=\(b.id)", "/v1/activities?deviceId=nobody",
        ] {
            let reply = api.send("GET", path, key: a.key)
            XCTAssertEqual(reply.status, 403, path)
            XCTAssertEqual(reply.error, "forbidden")
        }
        XCTAssertEqual(api.send("GET", "/v1/activities")["items"]?.arrayValue?.count, 2, "the admin sees every device")
        XCTAssertEqual(api.send("GET", "/v1/devices")["items"]?.arrayValue?.count, 2)
    }

    func testAdminOnlyRequestsAre403ForDeviceKeys() {
        for (method, path, body) in [
            ("POST", "/v1/devices", nil), ("POST", "/v1/clock", ["advanceBy": 1] as JSONValue?),
        ] {
            let reply = api.send(method, path, key: a.key, json: body)
            XCTAssertEqual(reply.status, 403, path)
            XCTAssertEqual(reply.error, "adminOnly")
        }
        XCTAssertEqual(api.send("GET", "/v1/clock", key: a.key).status, 200)
    }

    func testDeviceKeysSurviveAReopenOfTheStore() throws {
        api.close()
        api = try AppAPIHarness(directory: directory)
        XCTAssertEqual(api.send("GET", "/v1/activities/\(activityOfB)", key: b.key).status, 200)
        XCTAssertEqual(api.send("GET", "/v1/activities/\(activityOfB)", key: a.key).status, 404)
    }

    func testOnlyTheKeysHashIsStored() throws {
        let device = try XCTUnwrap(api.service.store.reader.document(kind: "device", id: a.id))
        let text = String(decoding: device.body, as: UTF8.self)
        XCTAssertFalse(text.contains(a.key))
        XCTAssertTrue(text.contains(DeviceKey.hash(a.key)))
    }
}
