import RelayCore
import RelayServer
import XCTest

/// What every app-API route shares: authentication, routing errors, body limits and JSON errors.
final class AppAPIProtocolTests: XCTestCase {
    private var api: AppAPIHarness!

    override func setUpWithError() throws { api = try AppAPIHarness() }
    override func tearDown() { api.close() }

    func testMissingOrWrongKeyIs401WithBearerChallengeOnEveryEndpoint() {
        let endpoints = [
            ("POST", "/v1/devices"), ("GET", "/v1/devices"), ("GET", "/v1/devices/x"),
            ("PUT", "/v1/devices/x/apps/com.a"),
            ("GET", "/v1/devices/x/apps/com.a"), ("POST", "/v1/devices/x/apps/com.a/push-to-start-tokens"),
            ("POST", "/v1/activities"), ("GET", "/v1/activities"), ("GET", "/v1/activities/x"),
            ("POST", "/v1/activities/x/update"), ("POST", "/v1/activities/x/end"), ("POST", "/v1/alarms"),
            ("GET", "/v1/alarms"), ("GET", "/v1/alarms/x"), ("POST", "/v1/alarms/x/pause"),
            ("POST", "/v1/alarms/x/resume"),
            ("POST", "/v1/alarms/x/countdown"), ("POST", "/v1/alarms/x/stop"), ("POST", "/v1/alarms/x/cancel"),
            ("GET", "/v1/clock"), ("POST", "/v1/clock"),
        ]
        for (method, path) in endpoints {
            let missing = api.send(method, path, key: nil, json: [:])
            XCTAssertEqual(missing.status, 401, "\(method) \(path)")
            XCTAssertEqual(missing.error, "unauthorized")
            XCTAssertEqual(missing.headers["www-authenticate"], "Bearer realm=\"activity-relay\"", "\(method) \(path)")
            let wrong = api.send(method, path, key: "not-a-key", json: [:])
            XCTAssertEqual(wrong.status, 401, "\(method) \(path)")
            XCTAssertTrue(wrong.headers["www-authenticate"]?.contains("invalid_token") == true)
        }
    }

    func testMalformedAuthorizationIs401() {
        let cases: [[(String, String)]] = [
            [("authorization", "Basic abc")], [("authorization", "Bearer")],
            [
                ("authorization", "Bearer \(AppAPIHarness.adminKey)"),
                ("authorization", "Bearer \(AppAPIHarness.adminKey)"),
            ],
            [("authorization", "Bearer " + String(repeating: "k", count: 600))],
        ]
        for headers in cases {
            XCTAssertEqual(api.send("GET", "/v1/clock", key: nil, headers: headers).status, 401, "\(headers.map(\.0))")
        }
    }

    func testBearerSchemeIsCaseInsensitive() {
        let reply = api.send(
            "GET", "/v1/clock", key: nil, headers: [("authorization", "bearer \(AppAPIHarness.adminKey)")])
        XCTAssertEqual(reply.status, 200)
    }

    func testAKeyMatchingOnlyAPrefixOfTheAdminKeyIsRefused() {
        XCTAssertEqual(api.send("GET", "/v1/clock", key: String(AppAPIHarness.adminKey.dropLast())).status, 401)
        XCTAssertEqual(api.send("GET", "/v1/clock", key: AppAPIHarness.adminKey + "x").status, 401)
    }

    func testUnknownRoutesUnderV1Are404() {
        for (method, path) in [
            ("GET", "/v1/nothing"), ("GET", "/v1/devices/x/y"), ("GET", "/v1/activities/x/restart"),
            ("POST", "/v1/alarms/x/snooze"), ("GET", "/v1/clock/now"), ("GET", "/v1/devicesx"),
        ] {
            let reply = api.send(method, path)
            XCTAssertEqual(reply.status, 404, "\(method) \(path)")
            XCTAssertEqual(reply.error, "notFound")
        }
    }

    func testWrongMethodIs405WithAllow() {
        let cases = [
            ("DELETE", "/v1/devices", "GET, POST"), ("POST", "/v1/devices/x", "GET"),
            ("POST", "/v1/devices/x/apps/com.a", "GET, PUT"),
            ("GET", "/v1/devices/x/apps/com.a/push-to-start-tokens", "POST"), ("PUT", "/v1/activities", "GET, POST"),
            ("DELETE", "/v1/activities/x", "GET"), ("GET", "/v1/activities/x/update", "POST"),
            ("GET", "/v1/activities/x/end", "POST"),
            ("PATCH", "/v1/alarms", "GET, POST"), ("GET", "/v1/alarms/x/stop", "POST"),
            ("PUT", "/v1/clock", "GET, POST"),
        ]
        for (method, path, allow) in cases {
            let reply = api.send(method, path, key: nil)
            XCTAssertEqual(reply.status, 405, "\(method) \(path)")
            XCTAssertEqual(reply.headers["allow"], allow, "\(method) \(path)")
            XCTAssertEqual(reply.error, "methodNotAllowed")
        }
    }

    func testBodyOverTheLimitIs413() {
        let device = api.createDevice()
        for (method, path) in [
            ("POST", "/v1/activities"), ("PUT", "/v1/devices/\(device.id)/apps/com.a"), ("POST", "/v1/alarms"),
        ] {
            let reply = api.send(method, path, body: [], bodyTooLarge: true)
            XCTAssertEqual(reply.status, 413, path)
            XCTAssertEqual(reply.error, "tooLarge")
        }
    }

    func testBodyThatIsNotJSONIs400NamingTheByteOffset() {
        let reply = api.send("POST", "/v1/activities", body: Array(#"{"deviceId": x}"#.utf8))
        XCTAssertEqual(reply.status, 400)
        XCTAssertEqual(reply.error, "invalidJSON")
        XCTAssertTrue(reply["message"]?.stringValue?.hasSuffix("at byte 13") == true, "\(reply.json)")
    }

    func testBodyMustBeAnObjectAndContentTypeIsNotEnforced() {
        let array = api.send(
            "POST", "/v1/activities", body: Array("[1]".utf8), headers: [("content-type", "text/plain")])
        XCTAssertEqual(array.status, 400)
        XCTAssertEqual(array.error, "invalidRequest")
        let device = api.createDevice()
        let plain = api.send(
            "POST", "/v1/activities", json: AppAPIHarness.startBody(deviceId: device.id),
            headers: [("content-type", "text/plain")])
        XCTAssertEqual(plain.status, 201)
    }

    func testRequiredBodyMissingIs400() {
        for path in ["/v1/activities", "/v1/alarms", "/v1/activities/x/update"] {
            let reply = api.send("POST", path, body: [])
            XCTAssertEqual(reply.status, 400, path)
            XCTAssertEqual(reply.error, "invalidRequest")
        }
    }

    func testUnknownQueryParameterIs400() {
        XCTAssertEqual(api.send("GET", "/v1/activities?device=abc").status, 400)
        XCTAssertEqual(api.send("GET", "/v1/alarms?bundleId=x").status, 400)
    }

    func testTrailingSlashAndPercentEscapesInPaths() {
        let device = api.createDevice()
        XCTAssertEqual(api.send("GET", "/v1/devices/\(device.id)/").status, 200)
        let id = "5F1C0A52-8A4E-4C47-9B7E-2D3F6A1B9C10"
        let alarm = api.send(
            "POST", "/v1/alarms", json: AppAPIHarness.alarmBody(deviceId: device.id, extra: ["id": .string(id)]))
        XCTAssertEqual(alarm.status, 201, "\(alarm.json)")
        let fetched = api.send("GET", "/v1/alarms/5F1C0A52%2D8A4E-4C47-9B7E-2D3F6A1B9C10")
        XCTAssertEqual(fetched.status, 200)
        XCTAssertEqual(fetched["id"]?.stringValue, id)
        XCTAssertEqual(
            api.send("GET", "/v1/alarms/5F1C0A52+8A4E-4C47-9B7E-2D3F6A1B9C10").status, 404, "+ is not a space in a path"
        )
    }
}
