import Foundation
import RelayCore
import RelayJSON
import RelayServer
import XCTest

/// `/v1/devices`: creation, per-app settings and push-to-start tokens.
final class DeviceRoutesTests: XCTestCase {
    private var api: AppAPIHarness!

    override func setUpWithError() throws { api = try AppAPIHarness() }
    override func tearDown() { api.close() }

    func testCreateReturnsIdAndAWorkingKey() {
        let reply = api.send("POST", "/v1/devices")
        XCTAssertEqual(reply.status, 201)
        let id = try? XCTUnwrap(reply["deviceId"]?.stringValue)
        let key = reply["deviceKey"]?.stringValue ?? ""
        XCTAssertEqual(key.utf8.count, 43)
        let fetched = api.send("GET", "/v1/devices/\(id ?? "")", key: key)
        XCTAssertEqual(fetched.status, 200)
        XCTAssertEqual(fetched["deviceId"]?.stringValue, id)
        XCTAssertNil(fetched["keyHash"], "the key hash stays inside")
        XCTAssertNil(fetched["deviceKey"])
    }

    func testCreateRefusesUnknownBodyMembers() {
        XCTAssertEqual(api.send("POST", "/v1/devices", json: [:]).status, 201)
        let reply = api.send("POST", "/v1/devices", json: ["colour": "blue"])
        XCTAssertEqual(reply.status, 400)
        XCTAssertEqual(reply.error, "invalidRequest")
    }

    func testNameAndModelArePersistedAndReturned() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "device-names-\(UUID().uuidString)")
        api.close()
        api = try AppAPIHarness(directory: directory)
        let created = api.send("POST", "/v1/devices", json: ["name": "Ana’s iPhone", "model": "iPhone 16 Pro"])
        XCTAssertEqual(created.status, 201)
        XCTAssertEqual(created["name"], "Ana’s iPhone")
        let id = try XCTUnwrap(created["deviceId"]?.stringValue)
        let fetched = api.send("GET", "/v1/devices/\(id)")
        XCTAssertEqual(fetched["name"], "Ana’s iPhone")
        XCTAssertEqual(fetched["model"], "iPhone 16 Pro")
        XCTAssertEqual(api.send("GET", "/v1/devices")["items"]?.arrayValue?.first?["model"], "iPhone 16 Pro")
        let unnamed = api.send("POST", "/v1/devices")
        XCTAssertEqual(unnamed["name"], .null)

        // Survives a restart of the service on the same directory.
        api.close()
        api = try AppAPIHarness(directory: directory)
        XCTAssertEqual(api.send("GET", "/v1/devices/\(id)")["name"], "Ana’s iPhone")
        api.close()
        try FileManager.default.removeItem(at: directory)
        api = try AppAPIHarness()
    }

    func testNameAndModelAreChecked() {
        let cases: [(JSONValue, String)] = [
            (["name": ""], "name: must be 1-64 characters"),
            (["name": .string(String(repeating: "x", count: 65))], "name: must be 1-64 characters"),
            (["name": "two\nlines"], "name: must be printable (found U+000A)"),
            (["model": "zero\u{200B}width"], "model: must be printable (found U+200B)"),
            (["name": "   "], "name: must not be only spaces"),
            (["model": 16], "model: must be a string"),
        ]
        for (body, message) in cases {
            let reply = api.send("POST", "/v1/devices", json: body)
            XCTAssertEqual(reply.status, 400, "\(body)")
            XCTAssertTrue(reply["message"]?.stringValue?.hasPrefix(message) == true, "\(reply.json)")
        }
    }

    func testUnknownDeviceIs404() {
        let reply = api.send("GET", "/v1/devices/nope")
        XCTAssertEqual(reply.status, 404)
        XCTAssertEqual(reply.error, "notFound")
        XCTAssertEqual(
            api.send("PUT", "/v1/devices/nope/apps/com.a", json: ["liveActivitiesEnabled": false]).status, 404)
    }

    func testSettingsPutChangesOnlyGivenMembersAndGetReturnsThem() {
        let device = api.createDevice()
        let path = "/v1/devices/\(device.id)/apps/com.example.delivery"
        let defaults = api.send("GET", path, key: device.key)
        XCTAssertEqual(defaults.status, 200)
        XCTAssertEqual(
            defaults.json,
            [
                "deviceId": .string(device.id), "bundleId": "com.example.delivery", "liveActivitiesEnabled": true,
                "frequentPushesEnabled": false, "alarmAuthorization": "notDetermined",
            ])
        let put = api.send(
            "PUT", path, key: device.key, json: ["frequentPushesEnabled": true, "alarmAuthorization": "denied"])
        XCTAssertEqual(put.status, 200)
        XCTAssertEqual(put["frequentPushesEnabled"], true)
        XCTAssertEqual(put["alarmAuthorization"], "denied")
        XCTAssertEqual(put["liveActivitiesEnabled"], true)
        XCTAssertEqual(api.send("GET", path).json, put.json)
    }

    func testSettingsValidation() {
        let device = api.createDevice()
        let cases: [(String, JSONValue)] = [
            ("com.example.delivery", ["liveActivitiesEnabled": "yes"]),
            ("com.example.delivery", ["alarmAuthorization": "maybe"]),
            ("com.example.delivery", ["volume": 3]),
            ("bad_bundle!", ["liveActivitiesEnabled": true]),
        ]
        for (bundleId, body) in cases {
            let reply = api.send("PUT", "/v1/devices/\(device.id)/apps/\(bundleId)", json: body)
            XCTAssertEqual(reply.status, 400, "\(bundleId) \(body)")
            XCTAssertEqual(reply.error, "invalidRequest")
        }
        XCTAssertEqual(api.send("GET", "/v1/devices/\(device.id)/apps/bad_bundle!").status, 400)
    }

    func testDisablingLiveActivitiesMakesStarts403() {
        let device = api.createDevice()
        _ = api.send(
            "PUT", "/v1/devices/\(device.id)/apps/com.example.delivery", json: ["liveActivitiesEnabled": false])
        let reply = api.send("POST", "/v1/activities", json: AppAPIHarness.startBody(deviceId: device.id))
        XCTAssertEqual(reply.status, 403)
        XCTAssertEqual(reply.error, "liveActivitiesDisabled")
    }

    func testPushToStartTokenIsIssuedOncePerAttributesType() {
        let device = api.createDevice()
        let path = "/v1/devices/\(device.id)/apps/com.example.delivery/push-to-start-tokens"
        let first = api.send("POST", path, key: device.key, json: ["attributesType": "DeliveryAttributes"])
        XCTAssertEqual(first.status, 201)
        let token = first["token"]?.stringValue ?? ""
        XCTAssertEqual(token.utf8.count, 80)
        let again = api.send("POST", path, key: device.key, json: ["attributesType": "DeliveryAttributes"])
        XCTAssertEqual(again.status, 200)
        XCTAssertEqual(again["token"]?.stringValue, token)
        let other = api.send("POST", path, key: device.key, json: ["attributesType": "ScoreAttributes"])
        XCTAssertEqual(other.status, 201)
        XCTAssertNotEqual(other["token"]?.stringValue, token)
        let listed = api.send("GET", "/v1/devices/\(device.id)")["pushToStartTokens"]?.arrayValue ?? []
        XCTAssertEqual(listed.count, 2)
    }

    func testPushToStartTokenValidation() {
        let device = api.createDevice()
        let path = "/v1/devices/\(device.id)/apps/com.example.delivery/push-to-start-tokens"
        for body: JSONValue in [[:], ["attributesType": 3], ["attributesType": ""], ["attributesType": "T", "x": 1]] {
            let reply = api.send("POST", path, json: body)
            XCTAssertEqual(reply.status, 400, "\(body)")
        }
        XCTAssertEqual(
            api.send("POST", "/v1/devices/nope/apps/com.a/push-to-start-tokens", json: ["attributesType": "T"]).status,
            404)
    }

    func testWritesAreDurableWhenAnswered() throws {
        let device = api.createDevice()
        _ = api.send("PUT", "/v1/devices/\(device.id)/apps/com.example.delivery", json: ["frequentPushesEnabled": true])
        // The answer came after the commit: a fresh reader sees the change.
        let stored = try XCTUnwrap(api.service.store.reader.document(kind: "device", id: device.id))
        let body = try JSONValue(parsing: stored.body)
        XCTAssertEqual(body["apps"]?["com.example.delivery"]?["frequentPushesEnabled"], true)
    }
}
