import Foundation
import RelayCore
import RelayServer
import RelayTestKit
import XCTest

/// An unmodified APNs client library (Python `aioapns`, configured with host, port, CA, the
/// development .p8, key ID, team and topic) against the live relay: push-to-start, update, a
/// stale timestamp, an over-budget burst, a bad topic, end and a push after the end; then what
/// the emulated device did, from the push log and the activity itself.
final class AioapnsLiveTests: XCTestCase {
    private var provider: ProviderRelay!

    override func tearDown() {
        provider?.stop()
        provider = nil
    }

    /// One step's answers: `(status, reason, apnsId)` per copy sent.
    private typealias Answers = [(status: String, reason: String?, apnsID: String, timestamp: Int64?)]

    /// Runs `aioapns_client.py` with `steps`; the answers by step name.
    private func aioapns(_ steps: [[String: Any]]) throws -> [String: Answers] {
        let input = try provider.writeInput(steps)
        let outcome = try ChildProcess.run(
            [
                "python3", Fixtures.path("aioapns_client.py"), "--host", "localhost", "--port", String(provider.port),
                "--cafile", provider.caPath, "--key", provider.devKeyPath, "--key-id", DataDirectory.devKeyID,
                "--team", DataDirectory.devTeamID, "--topic", ProviderRelay.topic, "--input", input,
            ], timeout: 120)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let list = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]], outcome.stderr)
        var answers: [String: Answers] = [:]
        for step in list {
            let name = try XCTUnwrap(step["name"] as? String)
            answers[name] = (step["results"] as? [[String: Any]] ?? []).map {
                (
                    $0["status"] as? String ?? "", $0["reason"] as? String, $0["apnsId"] as? String ?? "",
                    ($0["timestamp"] as? NSNumber)?.int64Value
                )
            }
        }
        return answers
    }

    private func payload(_ event: String, at offset: Int64, state: [String: Any], extra: [String: Any] = [:])
        -> [String: Any]
    {
        var aps: [String: Any] = [
            "event": event, "timestamp": ProviderRelay.now(minus: 0) + offset, "content-state": state,
        ]
        aps.merge(extra) { _, new in new }
        return ["aps": aps]
    }

    /// The README's aioapns example, as printed (only the port changed), run against a fresh
    /// activity at once: the push stamped with the current second is answered 200 and applied.
    func testTheReadmeExampleWorksAsWritten() throws {
        provider = try ProviderRelay()
        let device = try provider.makeDevice()
        let activity = try provider.startActivity(deviceId: device.id)
        let token = try XCTUnwrap(activity.token)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try XCTUnwrap(readme.range(of: "<!-- aioapns:start -->\n  ```python\n"))
        let end = try XCTUnwrap(readme.range(of: "  ```\n  <!-- aioapns:end -->"))
        let script = readme[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("  ") ? String($0.dropFirst(2)) : String($0) }.joined(separator: "\n")
            .replacingOccurrences(of: "APNS_PORT = 8443", with: "APNS_PORT = \(provider.port)")
        XCTAssertTrue(script.contains("APNS_PORT = \(provider.port)"))

        let workspace = URL(fileURLWithPath: provider.data.path).deletingLastPathComponent()
            .appendingPathComponent("aioapns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workspace) }
        try FileManager.default.createSymbolicLink(
            atPath: workspace.appendingPathComponent(".relay").path, withDestinationPath: provider.data.path)
        let file = workspace.appendingPathComponent("example.py")
        try script.write(to: file, atomically: true, encoding: .utf8)
        let outcome = try ChildProcess.run(
            ["bash", "-c", "cd '\(workspace.path)' && python3 example.py"], timeout: 60,
            environment: [
                "ACTIVITY_PUSH_TOKEN": token, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            ])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(outcome.stdout, "200 None\n", outcome.stderr)
        let logged = try XCTUnwrap(try provider.pushLog("token=\(token)").first)
        XCTAssertEqual(logged["outcome"] as? String, "applied", "\(logged)")
        XCTAssertEqual(try provider.activity(activity.id)["contentState"]?["status"], "on its way")
    }

    /// The push log entry of `apnsID`.
    private func logged(_ apnsID: String) throws -> [String: Any] {
        try XCTUnwrap(try provider.pushLog("apnsId=\(apnsID)").first, "no push log entry for \(apnsID)")
    }

    func testStartUpdateStaleBurstBadTopicEndAndAfterEnd() throws {
        provider = try ProviderRelay { $0.rules.updateBudgetPerHour = 3 }
        let device = try provider.makeDevice()
        let startToken = try provider.pushToStartToken(deviceId: device.id)

        let started = try aioapns([
            [
                "name": "start", "token": startToken, "priority": 10,
                "payload": payload(
                    "start", at: 1, state: ["status": "accepted"],
                    extra: [
                        "attributes-type": "DeliveryAttributes", "attributes": ["order": "7"],
                        "alert": ["title": "Order accepted", "body": "We are on it"], "input-push-token": 1,
                    ]),
            ]
        ])
        let start = try XCTUnwrap(started["start"]?.first)
        XCTAssertEqual(start.status, "200")
        let startRecord = try logged(start.apnsID)
        XCTAssertEqual(startRecord["outcome"] as? String, "started")
        let activityID = try XCTUnwrap(startRecord["activityId"] as? String)
        let activity = try provider.activity(activityID)
        XCTAssertEqual(activity["attributes"], ["order": "7"])
        XCTAssertEqual(activity["state"], "active")
        let token = try XCTUnwrap(
            activity["pushToken"]?.stringValue, "input-push-token gives the activity an update token")

        let answers = try aioapns([
            [
                "name": "update", "token": token, "priority": 10,
                "payload": payload("update", at: 10, state: ["status": "cooking"]),
            ],
            [
                "name": "stale", "token": token, "priority": 10,
                "payload": payload("update", at: 5, state: ["status": "old"]),
            ],
            [
                "name": "burst", "token": token, "priority": 10, "repeat": 5,
                "payload": payload("update", at: 20, state: ["status": "on its way"]),
            ],
            [
                "name": "badTopic", "token": token, "topic": ProviderRelay.bundle,
                "payload": payload("update", at: 21, state: ["status": "x"]),
            ],
            [
                "name": "end", "token": token, "priority": 10,
                "payload": payload(
                    "end", at: 30, state: ["status": "delivered"],
                    extra: ["dismissal-date": ProviderRelay.now(minus: -600)]),
            ],
            ["name": "afterEnd", "token": token, "payload": payload("update", at: 40, state: ["status": "late"])],
        ])

        let update = try XCTUnwrap(answers["update"]?.first)
        XCTAssertEqual(update.status, "200")
        XCTAssertEqual(try logged(update.apnsID)["outcome"] as? String, "applied")

        let stale = try XCTUnwrap(answers["stale"]?.first)
        XCTAssertEqual(stale.status, "200", "APNs accepts it; the device ignores it")
        XCTAssertEqual(try logged(stale.apnsID)["outcome"] as? String, "ignored")

        let burst = try XCTUnwrap(answers["burst"])
        XCTAssertEqual(burst.map(\.status), Array(repeating: "200", count: 5))
        let outcomes = try burst.map { try logged($0.apnsID)["outcome"] as? String ?? "" }
        XCTAssertTrue(outcomes.contains("deferred"), "over the hourly budget updates are deferred: \(outcomes)")

        let badTopic = try XCTUnwrap(answers["badTopic"]?.first)
        XCTAssertEqual(badTopic.status, "400")
        XCTAssertEqual(badTopic.reason, "TopicDisallowed")
        XCTAssertEqual(try logged(badTopic.apnsID)["outcome"] as? String, "rejected")

        let end = try XCTUnwrap(answers["end"]?.first)
        XCTAssertEqual(end.status, "200")
        let ended = try provider.activity(activityID)
        XCTAssertEqual(ended["state"], "ended")
        XCTAssertEqual(ended["contentState"], ["status": "delivered"])

        let afterEnd = try XCTUnwrap(answers["afterEnd"]?.first)
        XCTAssertEqual(afterEnd.status, "410")
        XCTAssertEqual(afterEnd.reason, "Unregistered")
        let endedAt = try XCTUnwrap(ended["endedAt"]?.doubleValue)
        XCTAssertEqual(Double(try XCTUnwrap(afterEnd.timestamp)), (endedAt * 1000).rounded(.down), accuracy: 1)
    }

    func testInStrictModeAnUpdateOverBudgetIs429() throws {
        provider = try ProviderRelay { options in
            options.rules.updateBudgetPerHour = 2
            options.rules.strictBudget = true
        }
        let device = try provider.makeDevice()
        let token = try XCTUnwrap(try provider.startActivity(deviceId: device.id).token)
        let answers = try aioapns(
            (1...4).map { index in
                [
                    "name": "update\(index)", "token": token, "priority": 10,
                    "payload": payload("update", at: Int64(index), state: ["n": index]),
                ]
            })
        let statuses = (1...4).map { answers["update\($0)"]?.first?.status ?? "none" }
        XCTAssertEqual(statuses, ["200", "200", "429", "429"])
        XCTAssertEqual(answers["update3"]?.first?.reason, "TooManyRequests")
        XCTAssertEqual(try logged(try XCTUnwrap(answers["update4"]?.first?.apnsID))["status"] as? Int, 429)
    }
}
