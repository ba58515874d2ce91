import Foundation
import RelayCore
import RelayJSON
import RelayRedis
import RelayServer
import RelayTestKit
import XCTest

/// Three relay nodes on one Redis Cluster (3 masters, 3 replicas from Debian's redis-server):
/// a push through node A with `aioapns` is read through node B; a token's burst spent through A
/// is spent on B; a clock advance on C ends the activity everywhere, with one event.
final class ClusterLiveTests: XCTestCase {
    private var redis: RedisClusterHarness!
    private var nodes: [KillableRelay] = []

    override func tearDown() {
        nodes = []
        redis?.stop()
        redis = nil
    }

    private static let topic = "com.example.app.push-type.liveactivity"

    /// Starts the cluster and three relay nodes sharing its store and their keys.
    private func startNodes(rules: String) throws -> (KillableRelay, KillableRelay, KillableRelay) {
        redis = try RedisClusterHarness.start()
        let seeds = redis.seeds.map { "\"\($0)\"" }.joined(separator: ", ")
        let config = #""clock": "virtual", "store": {"redisCluster": {"seeds": [\#(seeds)]}}, "rules": \#(rules)"#
        let first = try KillableRelay(name: "cluster-a", config: config)
        nodes = [first]
        for name in ["cluster-b", "cluster-c"] {
            nodes.append(try KillableRelay(name: name, config: config, keysFrom: first.data))
        }
        return (nodes[0], nodes[1], nodes[2])
    }

    /// Sends `steps` through `node` with aioapns; each step's statuses and reasons.
    private func aioapns(_ node: KillableRelay, _ steps: [[String: Any]]) throws -> [String: [(String, String?)]] {
        let input = node.data + "/steps-\(UUID().uuidString).json"
        try JSONSerialization.data(withJSONObject: steps).write(to: URL(fileURLWithPath: input))
        let outcome = try ChildProcess.run(
            [
                "python3", Fixtures.path("aioapns_client.py"), "--host", "localhost", "--port", String(node.port),
                "--cafile", node.ca, "--key", node.data + "/" + DataDirectory.devProviderKeyFileName, "--key-id",
                DataDirectory.devKeyID, "--team", DataDirectory.devTeamID, "--topic", Self.topic, "--input", input,
            ], timeout: 120)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let list = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]], outcome.stderr)
        var answers: [String: [(String, String?)]] = [:]
        for step in list {
            let name = try XCTUnwrap(step["name"] as? String)
            answers[name] = (step["results"] as? [[String: Any]] ?? []).map {
                ($0["status"] as? String ?? "", $0["reason"] as? String)
            }
        }
        return answers
    }

    private func update(_ name: String, token: String, at timestamp: Int64, progress: Double) -> [String: Any] {
        [
            "name": name, "token": token, "priority": 10,
            "payload": ["aps": ["event": "update", "timestamp": timestamp, "content-state": ["progress": progress]]],
        ]
    }

    /// A device and an activity with a push token, made through `node`.
    private func startActivity(on node: KillableRelay) throws -> (device: String, activity: String, token: String) {
        let device = try XCTUnwrap(node.api.expect(201, "POST", "/v1/devices", json: [:])["deviceId"]?.stringValue)
        let started = try node.api.expect(
            201, "POST", "/v1/activities",
            json: [
                "deviceId": .string(device), "bundleId": "com.example.app", "attributesType": "DeliveryAttributes",
                "attributes": ["order": "A1"], "contentState": ["progress": 0], "pushType": "token",
            ])
        return (
            device, try XCTUnwrap(started["id"]?.stringValue), try XCTUnwrap(started["pushToken"]?.stringValue)
        )
    }

    /// The events of `device` in Redis, as `type` names in order.
    private func storedEvents(device: String) throws -> [String] {
        let key = "{dev:\(device)}:ev"
        let port = try redis.masterPort(forSlot: HashSlot.slot(of: key))
        let text = try redis.cli(port, ["XRANGE", key, "-", "+"])
        // redis-cli prints each entry's id, then field/value lines; types follow the "t" field.
        let lines = text.split(separator: "\n").map(String.init)
        return zip(lines, lines.dropFirst()).compactMap { $0.0 == "t" ? $0.1 : nil }
    }

    func testPushThroughOneNodeIsReadOnAnotherAndTheBurstLimitHoldsAcrossNodes() throws {
        let (a, b, _) = try startNodes(rules: #"{"tokenBurst": {"capacity": 3, "refillInterval": 3600}}"#)
        let (_, activity, token) = try startActivity(on: a)
        let clock = try XCTUnwrap(a.api.expect(200, "GET", "/v1/clock")["now"]?.doubleValue)
        let base = Int64(clock)

        let first = try aioapns(a, [update("first", token: token, at: base + 1, progress: 0.25)])
        XCTAssertEqual(first["first"]?.first?.0, "200")
        let read = try b.api.expect(200, "GET", "/v1/activities/\(activity)")
        XCTAssertEqual(read["contentState"]?["progress"]?.doubleValue, 0.25, "node B reads what node A applied")

        // Two more pushes through A spend the burst of 3; the next, through B, is refused.
        let more = try aioapns(
            a,
            [
                update("second", token: token, at: base + 2, progress: 0.5),
                update("third", token: token, at: base + 3, progress: 0.75),
            ])
        XCTAssertEqual(more["second"]?.first?.0, "200")
        XCTAssertEqual(more["third"]?.first?.0, "200")
        let refused = try aioapns(b, [update("fourth", token: token, at: base + 4, progress: 1)])
        XCTAssertEqual(refused["fourth"]?.first?.0, "429")
        XCTAssertEqual(refused["fourth"]?.first?.1, "TooManyRequests")
        let after = try a.api.expect(200, "GET", "/v1/activities/\(activity)")
        XCTAssertEqual(after["contentState"]?["progress"]?.doubleValue, 0.75)
    }

    func testClockAdvanceOnOneNodeEndsActivitiesEverywhereWithOneEvent() throws {
        let (a, b, c) = try startNodes(rules: "{}")
        let (device, activity, _) = try startActivity(on: a)
        let moved = try c.api.expect(200, "POST", "/v1/clock", json: ["advanceBy": .int(9 * 3600)])
        XCTAssertNotNil(moved["now"]?.doubleValue)
        for node in [a, b] {
            let read = try node.api.expect(200, "GET", "/v1/activities/\(activity)")
            XCTAssertEqual(read["state"]?.stringValue, "ended", "after 9 hours the activity has ended")
        }
        // Every node's ticker sweeps due devices too; the version check lets one apply each.
        Thread.sleep(forTimeInterval: 1)
        let types = try storedEvents(device: device)
        XCTAssertEqual(types.filter { $0 == "activity.ended" }.count, 1, "\(types)")
        XCTAssertEqual(types.first, "activity.started")
    }
}
