import RelayCore
import RelayJSON
import RelayServer
import XCTest

/// `/v1/faults`: admin only; add, list, remove one, clear; rules checked member by member.
final class FaultRoutesTests: XCTestCase {
    private var api: AppAPIHarness!

    override func setUpWithError() throws { api = try AppAPIHarness() }
    override func tearDown() { api.close() }

    func testAddListRemoveAndClear() throws {
        let added = api.send("POST", "/v1/faults", json: ["kind": "error", "status": 503, "share": 0.5, "count": 3])
        XCTAssertEqual(added.status, 201)
        XCTAssertEqual(added["id"], "f1")
        XCTAssertEqual(added["reason"], "ServiceUnavailable", "503's reason is filled in")
        XCTAssertEqual(added["count"], 3)
        XCTAssertEqual(added["seed"], 1)
        let second = api.send(
            "POST", "/v1/faults", json: ["kind": "latency", "minMs": 10, "maxMs": 20, "bundleId": "com.a", "seed": 7])
        XCTAssertEqual(second["id"], "f2")
        XCTAssertEqual(second["seed"], 7)
        let listed = api.send("GET", "/v1/faults")
        XCTAssertEqual(listed.status, 200)
        XCTAssertEqual(listed["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue }, ["f1", "f2"])

        let removed = api.send("DELETE", "/v1/faults/f1")
        XCTAssertEqual(removed.status, 200)
        XCTAssertEqual(removed["items"]?.arrayValue?.count, 1)
        XCTAssertEqual(api.send("DELETE", "/v1/faults/f1").status, 404)
        XCTAssertEqual(api.send("DELETE", "/v1/faults")["items"], [])
        XCTAssertEqual(api.send("POST", "/v1/faults", json: ["kind": "reset"])["id"], "f3", "ids are not reused")
    }

    func testDeviceKeysAreRefused() throws {
        let key = try XCTUnwrap(api.send("POST", "/v1/devices")["deviceKey"]?.stringValue)
        XCTAssertEqual(api.send("GET", "/v1/faults", key: key).status, 403)
        XCTAssertEqual(api.send("POST", "/v1/faults", key: key, json: ["kind": "reset"]).status, 403)
        XCTAssertEqual(api.send("DELETE", "/v1/faults", key: key).status, 403)
        XCTAssertEqual(api.send("GET", "/v1/faults", key: nil).status, 401)
    }

    func testBadRulesNameTheMember() {
        let cases: [(JSONValue, String)] = [
            (["status": 500], "kind: is required"),
            (["kind": "boom"], "kind: must be \"error\""),
            (["kind": "error", "status": 200], "status: must be from 400 to 599"),
            (["kind": "error", "status": 400], "reason: is required for status 400"),
            (["kind": "error", "status": 500, "reason": "no spaces"], "reason: must be 1-64 letters"),
            (["kind": "error", "status": 500, "share": 0], "share: must be above 0"),
            (["kind": "error", "status": 500, "count": 0], "count: must be a whole number from 1"),
            (["kind": "error", "status": 500, "header": "x"], "header: is not a known key"),
            (["kind": "latency"], "ms: is required"),
            (["kind": "latency", "minMs": 50, "maxMs": 10], "maxMs: must not be below minMs"),
            (["kind": "latency", "ms": 5, "maxMs": 10], "ms: takes no minMs or maxMs"),
            (["kind": "goaway", "afterStreams": -1], "afterStreams: must be a whole number"),
            (["kind": "reset", "token": "xyz"], "token: must be a device token"),
            (["kind": "reset", "bundleId": "bad bundle"], "bundleId: must be 1-155"),
            (["kind": "refuseHandshakes", "seconds": 5, "bundleId": "com.a"], "bundleId: is not a known key"),
            (["kind": "refuseHandshakes"], "seconds: is required"),
        ]
        for (body, message) in cases {
            let reply = api.send("POST", "/v1/faults", json: body)
            XCTAssertEqual(reply.status, 400, "\(body)")
            XCTAssertTrue(reply["message"]?.stringValue?.hasPrefix(message) == true, "\(body): \(reply.json)")
        }
        XCTAssertEqual(api.send("GET", "/v1/faults")["items"], [], "nothing was added")
    }
}
