import RelayCore
import RelayJSON
import RelayServer
import XCTest

/// `/v1/activities`: start, update, end, get and list, with their errors.
final class ActivityRoutesTests: XCTestCase {
    private var api: AppAPIHarness!
    private var device: (id: String, key: String)!

    override func setUpWithError() throws {
        api = try AppAPIHarness()
        device = api.createDevice()
    }

    override func tearDown() { api.close() }

    func testStartAnswers201WithTheContractShape() throws {
        let now = api.now
        let reply = api.send(
            "POST", "/v1/activities",
            json: AppAPIHarness.startBody(
                deviceId: device.id,
                extra: ["staleDate": .number(now + 600), "relevanceScore": 50, "pushType": "token"]))
        XCTAssertEqual(reply.status, 201, "\(reply.json)")
        for key in [
            "id", "deviceId", "bundleId", "attributesType", "attributes", "contentState", "state", "staleDate",
            "relevanceScore", "pushToken", "channelId", "startedAt", "endedAt", "dismissAt", "lastTimestamp",
        ] {
            XCTAssertNotNil(reply[key], key)
        }
        XCTAssertEqual(reply["state"], "active")
        XCTAssertEqual(reply["staleDate"]?.doubleValue, now + 600)
        XCTAssertEqual(reply["pushToken"]?.stringValue?.utf8.count, 80)
        XCTAssertEqual(reply["channelId"], .null)
        XCTAssertEqual(reply["endedAt"], .null)
        let types = try api.events().map(\.type)
        XCTAssertEqual(Array(types.suffix(3)), ["activity.started", "activity.pushToken", "timeline.reload"])
    }

    func testStartValidation() {
        let cases: [(JSONValue, Int, String)] = [
            (["bundleId": "com.a"], 400, "invalidRequest"),
            (AppAPIHarness.startBody(deviceId: device.id, extra: ["attributes": "text"]), 400, "invalidRequest"),
            (AppAPIHarness.startBody(deviceId: device.id, extra: ["pushType": "push"]), 400, "invalidRequest"),
            (AppAPIHarness.startBody(deviceId: device.id, extra: ["unknown": 1]), 400, "invalidRequest"),
            (AppAPIHarness.startBody(deviceId: device.id, bundleId: "not a bundle"), 400, "invalidRequest"),
            (AppAPIHarness.startBody(deviceId: "nobody"), 404, "notFound"),
            (
                AppAPIHarness.startBody(
                    deviceId: device.id, extra: ["contentState": ["blob": .string(String(repeating: "x", count: 5000))]]
                ),
                413, "tooLarge"
            ),
        ]
        for (body, status, code) in cases {
            let reply = api.send("POST", "/v1/activities", json: body)
            XCTAssertEqual(reply.status, status, "\(body)")
            XCTAssertEqual(reply.error, code, "\(reply.json)")
        }
    }

    func testUpdateAppliesAndAnOlderTimestampIsIgnored() {
        let id = api.startActivity(deviceId: device.id)
        let now = api.now
        let applied = api.send(
            "POST", "/v1/activities/\(id)/update",
            json: ["contentState": ["status": "on the way"], "timestamp": .number(now + 5)])
        XCTAssertEqual(applied.status, 200)
        XCTAssertEqual(applied["outcome"], "applied")
        XCTAssertEqual(applied["contentState"], ["status": "on the way"])
        let older = api.send(
            "POST", "/v1/activities/\(id)/update",
            json: ["contentState": ["status": "late"], "timestamp": .number(now + 1)])
        XCTAssertEqual(older.status, 200)
        XCTAssertEqual(older["outcome"], "ignored")
        XCTAssertEqual(older["contentState"], ["status": "on the way"])
    }

    func testUpdateErrors() {
        let id = api.startActivity(deviceId: device.id)
        XCTAssertEqual(api.send("POST", "/v1/activities/nope/update", json: ["contentState": [:]]).status, 404)
        XCTAssertEqual(api.send("POST", "/v1/activities/\(id)/update", json: ["contentState": 1]).status, 400)
        XCTAssertEqual(api.send("POST", "/v1/activities/\(id)/end", json: [:]).status, 200)
        let late = api.send("POST", "/v1/activities/\(id)/update", json: ["contentState": ["status": "x"]])
        XCTAssertEqual(late.status, 409)
        XCTAssertEqual(late.error, "invalidState")
        XCTAssertEqual(late["state"], "ended")
    }

    func testEndWithPoliciesAndTwiceIs409() {
        let first = api.startActivity(deviceId: device.id)
        let ended = api.send("POST", "/v1/activities/\(first)/end", json: ["contentState": ["status": "delivered"]])
        XCTAssertEqual(ended.status, 200)
        XCTAssertEqual(ended["state"], "ended")
        XCTAssertEqual(ended["dismissAt"]?.doubleValue, (ended["endedAt"]?.doubleValue ?? 0) + 4 * 3600)
        let again = api.send("POST", "/v1/activities/\(first)/end")
        XCTAssertEqual(again.status, 409)
        XCTAssertEqual(again["state"], "ended")

        let second = api.startActivity(deviceId: device.id)
        let immediate = api.send("POST", "/v1/activities/\(second)/end", json: ["dismissalPolicy": "immediate"])
        XCTAssertEqual(immediate["state"], "dismissed")

        let third = api.startActivity(deviceId: device.id)
        XCTAssertEqual(api.send("POST", "/v1/activities/\(third)/end", json: ["dismissalPolicy": "later"]).status, 400)
        XCTAssertEqual(api.send("POST", "/v1/activities/nope/end").status, 404)
    }

    func testGetAndListWithFilters() {
        let first = api.startActivity(deviceId: device.id)
        let second = api.startActivity(deviceId: device.id, extra: ["bundleId": "com.example.scores"])
        _ = api.send("POST", "/v1/activities/\(second)/end", json: [:])
        let other = api.createDevice()
        _ = api.startActivity(deviceId: other.id)

        XCTAssertEqual(api.send("GET", "/v1/activities/\(first)")["id"]?.stringValue, first)
        XCTAssertEqual(api.send("GET", "/v1/activities/nope").status, 404)

        func ids(_ query: String) -> Set<String> {
            let reply = api.send("GET", "/v1/activities\(query)")
            XCTAssertEqual(reply.status, 200, query)
            return Set(reply["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [])
        }
        XCTAssertEqual(ids("").count, 3)
        XCTAssertEqual(ids("?deviceId=\(device.id)"), [first, second])
        XCTAssertEqual(ids("?deviceId=\(device.id)&bundleId=com.example.scores"), [second])
        XCTAssertEqual(ids("?deviceId=\(device.id)&state=active"), [first])
        XCTAssertEqual(ids("?state=ended"), [second])
        XCTAssertEqual(ids("?deviceId=&state="), ids(""))
        let bad = api.send("GET", "/v1/activities?state=paused")
        XCTAssertEqual(bad.status, 400)
    }
}
