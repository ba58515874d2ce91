import Foundation
import RelayCore
import RelayServer
import RelayTestKit
import XCTest

/// `aioapns` behind a backend's retry loop (`aioapns_retry.py`) against the live relay while
/// `/v1/faults` injects each kind of fault: every push is logged `injected` while the fault
/// lasts, the retry reaches the device once it ends, and an injected error is never applied.
final class FaultInjectionLiveTests: XCTestCase {
    private var provider: ProviderRelay!

    override func tearDown() {
        provider?.stop()
        provider = nil
    }

    /// Runs `aioapns_retry.py` with `steps`; the output by step name.
    private func backend(_ steps: [[String: Any]]) throws -> [String: [String: Any]] {
        let input = try provider.writeInput(steps)
        let outcome = try ChildProcess.run(
            [
                "python3", Fixtures.path("aioapns_retry.py"), "--host", "localhost", "--port", String(provider.port),
                "--cafile", provider.caPath, "--admin-key=" + provider.data.adminKey.secret, "--key",
                provider.devKeyPath, "--key-id", DataDirectory.devKeyID, "--team", DataDirectory.devTeamID,
                "--topic", ProviderRelay.topic, "--input", input,
            ], timeout: 300)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let list = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]], outcome.stderr)
        var steps: [String: [String: Any]] = [:]
        for step in list { steps[try XCTUnwrap(step["name"] as? String)] = step }
        return steps
    }

    private func update(_ token: String, _ step: String, at offset: Int64, fault: [String: Any]?) -> [String: Any] {
        [
            "name": step, "token": token, "fault": fault ?? NSNull(),
            "payload": [
                "aps": [
                    "event": "update", "timestamp": ProviderRelay.now(minus: 0) + offset,
                    "content-state": ["step": step],
                ]
            ],
        ]
    }

    /// The outcomes of the push log entries of `apnsID`, oldest first.
    private func outcomes(_ apnsID: String) throws -> [String] {
        try provider.pushLog("apnsId=\(apnsID)&limit=50").map { $0["outcome"] as? String ?? "?" }.reversed()
    }

    func testRetriesReachTheDeviceOnceEachFaultEnds() throws {
        provider = try ProviderRelay()
        let device = try provider.makeDevice()
        let activity = try provider.startActivity(deviceId: device.id)
        let token = try XCTUnwrap(activity.token)
        let steps = try backend([
            update(token, "error500", at: 1, fault: ["kind": "error", "status": 500, "count": 2]),
            update(token, "error503", at: 2, fault: ["kind": "error", "status": 503, "count": 1, "token": token]),
            update(
                token, "error429", at: 3,
                fault: ["kind": "error", "status": 429, "count": 1, "bundleId": ProviderRelay.bundle]),
            update(token, "latency", at: 4, fault: ["kind": "latency", "minMs": 300, "maxMs": 600, "count": 1]),
            update(token, "goaway", at: 5, fault: ["kind": "goaway", "afterStreams": 0, "count": 1]),
            update(token, "reset", at: 6, fault: ["kind": "reset", "count": 1]),
            update(token, "refused", at: 7, fault: ["kind": "refuseHandshakes", "seconds": 2])
                .merging(["newClient": true, "retryDelay": 0.5, "maxAttempts": 12]) { _, new in new },
        ])

        for name in ["error500", "error503", "error429", "latency", "goaway", "reset", "refused"] {
            let step = try XCTUnwrap(steps[name], name)
            XCTAssertEqual(step["final"] as? String, "200", "\(name): \(step)")
        }
        let attempts = { (name: String) in
            (steps[name]?["attempts"] as? [[String: Any]] ?? []).map { $0["status"] as? String ?? "-" }
        }
        XCTAssertEqual(attempts("error500"), ["500", "500", "200"])
        XCTAssertEqual(attempts("error503"), ["503", "200"])
        XCTAssertEqual(attempts("error429"), ["429", "200"])
        XCTAssertEqual(
            steps["error503"]?["attempts"].flatMap { ($0 as? [[String: Any]])?.first?["reason"] as? String },
            "ServiceUnavailable")

        // Each fault's pushes are logged as injected, then the retry applied.
        let apnsID = { (name: String) in steps[name]?["apnsId"] as? String ?? "" }
        XCTAssertEqual(try outcomes(apnsID("error500")), ["injected", "injected", "applied"])
        XCTAssertEqual(try outcomes(apnsID("error503")), ["injected", "applied"])
        XCTAssertEqual(try outcomes(apnsID("error429")), ["injected", "applied"])
        XCTAssertEqual(try outcomes(apnsID("goaway")), ["injected", "applied"], "aioapns retried on a new connection")
        XCTAssertEqual(try outcomes(apnsID("reset")), ["injected", "applied"], "aioapns retried on a new connection")
        XCTAssertEqual(try outcomes(apnsID("refused")), ["applied"], "no push reached the relay during the window")
        let slow = try XCTUnwrap(try provider.pushLog("apnsId=\(apnsID("latency"))").first)
        XCTAssertEqual(slow["outcome"] as? String, "applied")
        let fault = try XCTUnwrap(slow["fault"] as? [String: Any])
        XCTAssertEqual(fault["kind"] as? String, "latency")
        XCTAssertEqual(try XCTUnwrap(fault["latencyMs"] as? Double), 450, accuracy: 150.001)
        let injected = try XCTUnwrap(try provider.pushLog("apnsId=\(apnsID("error500"))").last)
        XCTAssertEqual(injected["status"] as? Int, 500)
        XCTAssertEqual(injected["reason"] as? String, "InternalServerError")
        XCTAssertEqual((injected["fault"] as? [String: Any])?["kind"] as? String, "error")

        // The refused handshakes' rule counted them; the others are used up.
        let rules = try provider.app.expect(200, "GET", "/v1/faults")["items"]?.arrayValue ?? []
        XCTAssertEqual(rules.count, 7)
        XCTAssertEqual(rules.filter { $0["count"]?.int64Value == 0 }.count, 6)
        XCTAssertGreaterThan(rules.last?["injected"]?.int64Value ?? 0, 0)
        XCTAssertEqual(try provider.activity(activity.id)["contentState"], ["step": "refused"])
    }

    func testAPushAnsweredWithAnInjectedErrorIsNotApplied() throws {
        provider = try ProviderRelay()
        let device = try provider.app.expect(201, "POST", "/v1/devices", json: ["name": "Ana’s iPhone"])
        let activity = try provider.startActivity(deviceId: try XCTUnwrap(device["deviceId"]?.stringValue))
        let token = try XCTUnwrap(activity.token)
        let steps = try backend([
            update(token, "applied", at: 1, fault: nil),
            update(token, "dropped", at: 2, fault: ["kind": "error", "status": 503])
                .merging(["retry": false]) { _, new in new },
        ])
        XCTAssertEqual(steps["dropped"]?["final"] as? String, "503")
        let current = try provider.activity(activity.id)
        XCTAssertEqual(current["contentState"], ["step": "applied"])
        let record = try XCTUnwrap(try provider.pushLog("apnsId=\(steps["dropped"]?["apnsId"] as? String ?? "")").first)
        XCTAssertEqual(record["outcome"] as? String, "injected")
        XCTAssertEqual(record["activityId"] as? String, activity.id)
        XCTAssertNil(record["deviceName"], "an injected push reached no device")
        let applied = try XCTUnwrap(
            try provider.pushLog("apnsId=\(steps["applied"]?["apnsId"] as? String ?? "")").first)
        XCTAssertEqual(applied["deviceName"] as? String, "Ana’s iPhone", "the push log names the device reached")

        // Cleared, the same push applies.
        _ = try provider.app.expect(200, "DELETE", "/v1/faults")
        let again = try backend([update(token, "after", at: 3, fault: nil)])
        XCTAssertEqual(again["after"]?["final"] as? String, "200")
        XCTAssertEqual(try provider.activity(activity.id)["contentState"], ["step": "after"])
    }
}
