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
    /// The Redis node asked where slots are (one that is alive).
    private var askingPort: UInt16?

    override func tearDown() {
        nodes = []
        redis?.stop()
        redis = nil
    }

    private static let topic = "com.example.app.push-type.liveactivity"

    /// Starts the cluster and three relay nodes sharing its store and their keys.
    private func startNodes(
        rules: String, clock: String = "virtual", extra: String? = nil, replicasPerMaster: Int = 1, tls: Bool = false
    ) throws -> (KillableRelay, KillableRelay, KillableRelay) {
        redis = try RedisClusterHarness.start(replicasPerMaster: replicasPerMaster, tls: tls)
        let seeds = redis.seeds.map { "\"\($0)\"" }.joined(separator: ", ")
        let caFile = redis.caFile.map { #", "caFile": "\#($0)""# } ?? ""
        let config =
            #""clock": "\#(clock)", "store": {"redisCluster": {"seeds": [\#(seeds)]\#(caFile)}}, "rules": \#(rules)"#
            + (extra.map { ", " + $0 } ?? "")
        let first = try KillableRelay(name: "cluster-a", config: config)
        nodes = [first]
        for name in ["cluster-b", "cluster-c"] {
            nodes.append(try KillableRelay(name: name, config: config, keysFrom: first.data))
        }
        return (nodes[0], nodes[1], nodes[2])
    }

    /// Sends `steps` through `node` with aioapns; each step's statuses and reasons.
    private func aioapns(_ node: KillableRelay, _ steps: [[String: Any]], topic: String = topic) throws -> [String: [(
        String, String?
    )]] {
        let input = node.data + "/steps-\(UUID().uuidString).json"
        try JSONSerialization.data(withJSONObject: steps).write(to: URL(fileURLWithPath: input))
        let outcome = try ChildProcess.run(
            [
                "python3", Fixtures.path("aioapns_client.py"), "--host", "localhost", "--port", String(node.port),
                "--cafile", node.ca, "--key", node.data + "/" + DataDirectory.devProviderKeyFileName, "--key-id",
                DataDirectory.devKeyID, "--team", DataDirectory.devTeamID, "--topic", topic, "--input", input,
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

    /// `GET /v1/stream?deviceId=` on `node` with curl for `seconds` (from `lastEventID` when given);
    /// the whole fleet's stream when `device` is nil.
    private func subscribe(
        _ node: KillableRelay, device: String?, seconds: Int, lastEventID: String? = nil, snapshot: Bool = false
    ) throws -> ChildProcess {
        var query = device.map { ["deviceId=\($0)"] } ?? []
        if snapshot { query.append("snapshot=true") }
        return try ChildProcess(
            [
                "curl", "-sN", "--http1.1", "--max-time", String(seconds), "--cacert", node.ca, "-H",
                "authorization: Bearer \(node.admin)",
            ] + (lastEventID.map { ["-H", "Last-Event-ID: \($0)"] } ?? [])
                + ["https://localhost:\(node.port)/v1/stream?" + query.joined(separator: "&")])
    }

    /// The events in an SSE body: id, type and data of each.
    private func events(_ body: String) -> [(id: String, type: String, data: String)] {
        body.components(separatedBy: "\n\n").compactMap { block in
            var id: String?
            var type: String?
            var data: String?
            for line in block.split(separator: "\n") {
                if line.hasPrefix("id: ") { id = String(line.dropFirst(4)) }
                if line.hasPrefix("event: ") { type = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
            }
            guard let id, let type, let data else { return nil }
            return (id, type, data)
        }
    }

    /// The events of `device` in Redis, as `type` names in order.
    private func storedEvents(device: String) throws -> [String] {
        let key = "{dev:\(device)}:ev"
        let port = try redis.masterPort(forSlot: HashSlot.slot(of: key), askingPort: askingPort)
        let text = try redis.cli(port, ["XRANGE", key, "-", "+"])
        // redis-cli prints each entry's id, then field/value lines; types follow the "t" field.
        let lines = text.split(separator: "\n").map(String.init)
        return zip(lines, lines.dropFirst()).compactMap { $0.0 == "t" ? $0.1 : nil }
    }

    func testPushThroughOneNodeIsReadOnAnotherAndTheBurstLimitHoldsAcrossNodes() throws {
        let (a, b, c) = try startNodes(rules: #"{"tokenBurst": {"capacity": 3, "refillInterval": 3600}}"#)
        let (device, activity, token) = try startActivity(on: a)
        let clock = try XCTUnwrap(a.api.expect(200, "GET", "/v1/clock")["now"]?.doubleValue)
        let base = Int64(clock)

        // A subscriber on node C, from now.
        let live = try subscribe(c, device: device, seconds: 8)
        Thread.sleep(forTimeInterval: 2)
        let first = try aioapns(a, [update("first", token: token, at: base + 1, progress: 0.25)])
        XCTAssertEqual(first["first"]?.first?.0, "200")
        let read = try b.api.expect(200, "GET", "/v1/activities/\(activity)")
        XCTAssertEqual(read["contentState"]?["progress"]?.doubleValue, 0.25, "node B reads what node A applied")
        let streamed = events(try live.wait(timeout: 30).stdout)
        XCTAssertFalse(streamed.contains { $0.type == "activity.started" }, "a live subscriber starts after it")
        let updated = try XCTUnwrap(streamed.first { $0.type == "activity.updated" }, "\(streamed)")
        XCTAssertEqual(
            try JSONValue(parsing: updated.data)["activity"]?["contentState"]?["progress"]?.doubleValue, 0.25)
        // Resuming on node B from the update's id: what came after it, ids increasing.
        let resumed = events(
            try subscribe(b, device: device, seconds: 3, lastEventID: updated.id).wait(timeout: 30).stdout)
        let ids = resumed.compactMap { UInt64($0.id) }
        XCTAssertFalse(ids.isEmpty, "events followed the update (its push.received at least)")
        XCTAssertEqual(ids, ids.sorted())
        XCTAssertTrue(ids.allSatisfy { $0 > UInt64(updated.id)! }, "\(ids) after \(updated.id)")
        // A fresh renderer on node C: a snapshot of the device first, its id the device's last event.
        let fresh = events(try subscribe(c, device: device, seconds: 3, snapshot: true).wait(timeout: 30).stdout)
        let snapshot = try XCTUnwrap(fresh.first, "\(fresh)")
        XCTAssertEqual(snapshot.type, "snapshot")
        let state = try JSONValue(parsing: snapshot.data)
        XCTAssertEqual(state["activities"]?.arrayValue?.first?["contentState"]?["progress"]?.doubleValue, 0.25)
        XCTAssertEqual(UInt64(snapshot.id), ids.max(), "the snapshot stands at the device's last event")

        // A subscriber further behind than the device's stream keeps (trimmed here below its
        // latest event) gets a snapshot first, as on one node, not a silent gap.
        let key = "{dev:\(device)}:ev"
        let port = try redis.masterPort(forSlot: HashSlot.slot(of: key), askingPort: askingPort)
        try redis.cli(port, ["XTRIM", key, "MINID", "0-\(try XCTUnwrap(ids.max()))"])
        let behind = events(try subscribe(a, device: device, seconds: 3, lastEventID: "1").wait(timeout: 30).stdout)
        XCTAssertEqual(behind.first?.type, "snapshot", "\(behind.map(\.type))")
        XCTAssertEqual(behind.first?.id, ids.max().map(String.init))

        // A stream ticket minted on A opens one stream on B; presented again on C it is refused.
        let ticket = try XCTUnwrap(
            a.api.expect(201, "POST", "/v1/stream-tickets", json: ["deviceId": .string(device)])["url"]?.stringValue)
        func status(_ node: KillableRelay) throws -> String {
            try ChildProcess.run(
                [
                    "curl", "-s", "--http1.1", "--max-time", "2", "-o", "/dev/null", "-w", "%{http_code}", "--cacert",
                    node.ca, "https://localhost:\(node.port)\(ticket)",
                ], timeout: 30
            ).stdout
        }
        XCTAssertEqual(try status(b), "200")
        XCTAssertEqual(try status(c), "401")

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
        // The token's push log, read on node C: every push through A and B, newest first.
        let log = try c.api.expect(200, "GET", "/v1/pushes?token=\(token)")["items"]?.arrayValue ?? []
        XCTAssertEqual(log.compactMap { $0["status"]?.int64Value }, [429, 200, 200, 200])
        // The fleet's push log, paged across nodes: two on C, the two older ones on A.
        let newest = try c.api.expect(200, "GET", "/v1/pushes?limit=2")
        XCTAssertEqual(newest["items"]?.arrayValue?.compactMap { $0["status"]?.int64Value }, [429, 200])
        let next = try XCTUnwrap(newest["nextBefore"]?.int64Value, "\(newest)")
        let older = try a.api.expect(200, "GET", "/v1/pushes?limit=2&before=\(next)")
        XCTAssertEqual(older["items"]?.arrayValue?.compactMap { $0["status"]?.int64Value }, [200, 200])
        let rest = try b.api.expect(200, "GET", "/v1/pushes?before=\(try XCTUnwrap(older["nextBefore"]?.int64Value))")
        XCTAssertEqual(rest["items"]?.arrayValue?.count, 0)
        XCTAssertEqual(rest["nextBefore"], JSONValue.null)
    }

    func testNodesReachAClusterThatSpeaksOnlyTLS() throws {
        let (a, b, _) = try startNodes(rules: "{}", replicasPerMaster: 0, tls: true)
        let port = try XCTUnwrap(redis.nodes.first?.port)
        let plain = try ChildProcess.run(["redis-cli", "-p", String(port), "PING"], timeout: 30)
        XCTAssertNotEqual(plain.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "PONG", "TLS only")
        // The fleet's stream on B (its reader connects over TLS too), a push through A.
        let fleet = try subscribe(b, device: nil, seconds: 6)
        Thread.sleep(forTimeInterval: 2)
        let (_, activity, token) = try startActivity(on: a)
        let base = Int64(try XCTUnwrap(a.api.expect(200, "GET", "/v1/clock")["now"]?.doubleValue))
        let pushed = try aioapns(a, [update("tls", token: token, at: base + 1, progress: 0.5)])
        XCTAssertEqual(pushed["tls"]?.first?.0, "200")
        let read = try b.api.expect(200, "GET", "/v1/activities/\(activity)")
        XCTAssertEqual(read["contentState"]?["progress"]?.doubleValue, 0.5)
        let streamed = events(try fleet.wait(timeout: 30).stdout).map(\.type)
        XCTAssertEqual(streamed.filter { $0 == "activity.updated" }.count, 1, "\(streamed)")
    }

    func testClockAdvanceOnOneNodeEndsActivitiesEverywhereWithOneEvent() throws {
        let (a, b, c) = try startNodes(rules: "{}")
        // The fleet's stream on node B, from now; then two devices start activities on A and C.
        let fleet = try subscribe(b, device: nil, seconds: 10)
        Thread.sleep(forTimeInterval: 2)
        let (device, activity, _) = try startActivity(on: a)
        let (_, other, _) = try startActivity(on: c)
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

        // The fleet's stream saw both devices' activities start and end, each once, then the
        // clock change; its ids only increase.
        let streamed = events(try fleet.wait(timeout: 30).stdout)
        let ids = streamed.compactMap { UInt64($0.id) }
        XCTAssertEqual(ids.count, streamed.count)
        XCTAssertEqual(ids, ids.sorted())
        XCTAssertEqual(Set(ids).count, ids.count)
        for id in [activity, other] {
            let own = streamed.filter { (try? JSONValue(parsing: $0.data))?["activity"]?["id"]?.stringValue == id }
            XCTAssertEqual(own.filter { $0.type == "activity.started" }.count, 1, "\(streamed)")
            XCTAssertEqual(own.filter { $0.type == "activity.ended" }.count, 1, "\(streamed)")
        }
        let clockEvent = try XCTUnwrap(streamed.lastIndex { $0.type == "clock" }, "\(streamed.map(\.type))")
        XCTAssertGreaterThan(clockEvent, try XCTUnwrap(streamed.lastIndex { $0.type == "activity.ended" }))
        // Resuming the fleet's stream on node A after the first event gives the rest, the same ids.
        let resumed = events(
            try subscribe(a, device: nil, seconds: 3, lastEventID: streamed[0].id).wait(timeout: 30).stdout)
        XCTAssertEqual(resumed.map(\.id), streamed.dropFirst().map(\.id))
        // A snapshot of the whole fleet on node C: both activities, at the feed's last event.
        let fresh = events(try subscribe(c, device: nil, seconds: 3, snapshot: true).wait(timeout: 30).stdout)
        let snapshot = try XCTUnwrap(fresh.first, "\(fresh)")
        XCTAssertEqual(snapshot.type, "snapshot")
        XCTAssertEqual(snapshot.id, streamed.last?.id)
        let shown = try JSONValue(parsing: snapshot.data)["activities"]?.arrayValue ?? []
        XCTAssertEqual(Set(shown.compactMap { $0["id"]?.stringValue }), [activity, other])
        XCTAssertTrue(shown.allSatisfy { $0["state"]?.stringValue == "ended" }, "\(shown)")
    }

    func testPriorityTenBudgetSpentThroughOneNodeIsSpentOnAnother() throws {
        let (a, b, _) = try startNodes(rules: #"{"updateBudgetPerHour": 2, "strictBudget": true}"#)
        let (_, activity, token) = try startActivity(on: a)
        let base = Int64(try XCTUnwrap(a.api.expect(200, "GET", "/v1/clock")["now"]?.doubleValue))
        let spent = try aioapns(
            a,
            [
                update("one", token: token, at: base + 1, progress: 0.1),
                update("two", token: token, at: base + 2, progress: 0.2),
            ])
        XCTAssertEqual(spent["one"]?.first?.0, "200")
        XCTAssertEqual(spent["two"]?.first?.0, "200")
        let over = try aioapns(b, [update("three", token: token, at: base + 3, progress: 0.3)])
        XCTAssertEqual(over["three"]?.first?.0, "429", "the activity's budget of 2 is spent on every node")
        XCTAssertEqual(over["three"]?.first?.1, "TooManyRequests")
        let read = try b.api.expect(200, "GET", "/v1/activities/\(activity)")
        XCTAssertEqual(read["contentState"]?["progress"]?.doubleValue, 0.2)
    }

    func testAnAlarmScheduledOnOneNodeIsOperatedAndListedOnOthers() throws {
        let (a, b, c) = try startNodes(rules: "{}")
        let (device, activity, _) = try startActivity(on: a)
        let scheduled = try a.api.expect(
            201, "POST", "/v1/alarms",
            json: [
                "deviceId": .string(device), "bundleId": "com.example.tea", "countdownDuration": ["preAlert": 300],
                "presentation": ["alert": ["title": "Tea is ready"]],
            ])
        let alarm = try XCTUnwrap(scheduled["id"]?.stringValue)
        XCTAssertEqual(scheduled["state"]?.stringValue, "countdown")
        XCTAssertEqual(try b.api.expect(200, "POST", "/v1/alarms/\(alarm)/pause")["state"]?.stringValue, "paused")
        XCTAssertEqual(try c.api.expect(200, "GET", "/v1/alarms/\(alarm)")["state"]?.stringValue, "paused")
        XCTAssertEqual(try c.api.expect(200, "POST", "/v1/alarms/\(alarm)/resume")["state"]?.stringValue, "countdown")
        try b.api.expect(200, "POST", "/v1/clock", json: ["advanceBy": .int(600)])
        XCTAssertEqual(try a.api.expect(200, "GET", "/v1/alarms/\(alarm)")["state"]?.stringValue, "alerting")
        let alarms = try c.api.expect(200, "GET", "/v1/alarms?deviceId=\(device)")["items"]?.arrayValue ?? []
        XCTAssertEqual(alarms.compactMap { $0["id"]?.stringValue }, [alarm])
        let activities = try b.api.expect(200, "GET", "/v1/activities?deviceId=\(device)")["items"]?.arrayValue ?? []
        XCTAssertEqual(activities.compactMap { $0["id"]?.stringValue }, [activity])
        // The device's widget timeline, on node B: now, then the alarm's alert past.
        let timeline = try b.api.expect(200, "GET", "/v1/devices/\(device)/timeline?family=systemMedium")
        XCTAssertFalse((timeline["entries"]?.arrayValue ?? []).isEmpty, "\(timeline)")
        XCTAssertNotNil(timeline["policy"]?.objectValue)
        // A device key made on node A works on node C: its own device's alarms, and nothing else.
        let keyed = try a.api.expect(201, "POST", "/v1/devices", json: [:])
        let key = try XCTUnwrap(keyed["deviceKey"]?.stringValue)
        let own = try XCTUnwrap(keyed["deviceId"]?.stringValue)
        let asDevice = AppAPIClient(base: "https://localhost:\(c.port)", caPath: c.ca, key: key)
        XCTAssertEqual(try asDevice.expect(200, "GET", "/v1/devices/\(own)")["deviceId"]?.stringValue, own)
        try asDevice.expect(404, "GET", "/v1/alarms/\(alarm)")
        let stranger = AppAPIClient(base: "https://localhost:\(c.port)", caPath: c.ca, key: "not-a-device-key")
        try stranger.expect(401, "GET", "/v1/devices/\(own)")
        // Lists across devices, on node A: both devices made on A, the activity, the alarm; a
        // device key's list holds only its own device.
        let devices = try a.api.expect(200, "GET", "/v1/devices")["items"]?.arrayValue ?? []
        XCTAssertEqual(devices.compactMap { $0["deviceId"]?.stringValue ?? $0["id"]?.stringValue }, [device, own])
        let everyActivity = try a.api.expect(200, "GET", "/v1/activities")["items"]?.arrayValue ?? []
        XCTAssertEqual(everyActivity.compactMap { $0["id"]?.stringValue }, [activity])
        let everyAlarm = try a.api.expect(200, "GET", "/v1/alarms")["items"]?.arrayValue ?? []
        XCTAssertEqual(everyAlarm.compactMap { $0["id"]?.stringValue }, [alarm])
        let mine = try asDevice.expect(200, "GET", "/v1/devices")["items"]?.arrayValue ?? []
        XCTAssertEqual(mine.count, 1)
    }

    // MARK: - Faults

    private static let crashBundle = "com.example.crash"
    /// A burst limit the writers never reach.
    private static let wideBurst = #"{"tokenBurst": {"capacity": 1000000, "refillInterval": 1}}"#

    /// A device with `count` activities with push tokens, made through `node`; the device and tokens.
    private func crashFleet(on node: KillableRelay, count: Int = 40) throws -> (device: String, tokens: [String]) {
        let device = try XCTUnwrap(node.api.expect(201, "POST", "/v1/devices", json: [:])["deviceId"]?.stringValue)
        var tokens: [String] = []
        for index in 0..<count {
            let activity = try node.api.expect(
                201, "POST", "/v1/activities",
                json: [
                    "deviceId": .string(device), "bundleId": .string(Self.crashBundle),
                    "attributesType": "CrashAttributes", "attributes": ["index": .int(Int64(index))],
                    "contentState": ["n": 0], "pushType": "token",
                ])
            tokens.append(try XCTUnwrap(activity["pushToken"]?.stringValue))
        }
        return (device, tokens)
    }

    /// `provider_writes.py` pushing through `node` to `tokens` until it is stopped or the node goes.
    private func writers(to node: KillableRelay, tokens: [String]) throws -> ChildProcess {
        let token = try ChildProcess.run([RelayBinary.path, "token", "--data", node.data])
        XCTAssertEqual(token.status, 0, token.stderr)
        let jwt = token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return try ChildProcess(
            ["python3", Fixtures.path("provider_writes.py"), String(node.port), node.ca, jwt]
                + [Self.crashBundle + ".push-type.liveactivity", "0"] + tokens)
    }

    /// The apns-ids `provider_writes.py` printed as answered `200`.
    private func acknowledged(_ stdout: String) -> [String] {
        stdout.split(separator: "\n").compactMap { line in
            (try? JSONValue(parsing: String(line)))?["apnsId"]?.stringValue
        }
    }

    /// The apns-ids in `device`'s push log in Redis.
    private func loggedPushes(device: String) throws -> Set<String> {
        let key = "{dev:\(device)}:log"
        let port = try redis.masterPort(forSlot: HashSlot.slot(of: key), askingPort: askingPort)
        let text = try redis.cli(port, ["LRANGE", key, "0", "-1"])
        return Set(
            text.split(separator: "\n").compactMap { line in
                (try? JSONValue(parsing: String(line)))?["apnsId"]?.stringValue
            })
    }

    /// One update through `node` to `token`, answered `200`.
    private func pushSucceeds(through node: KillableRelay, token: String) throws {
        let answers = try aioapns(
            node,
            [
                [
                    "name": "after", "token": token, "priority": 10,
                    "payload": [
                        "aps": [
                            "event": "update", "timestamp": Int64(Date().timeIntervalSince1970) + 100_000,
                            "content-state": ["n": -1],
                        ]
                    ],
                ]
            ], topic: Self.crashBundle + ".push-type.liveactivity")
        XCTAssertEqual(answers["after"]?.first?.0, "200", "\(answers)")
    }

    func testKillingARelayNodeUnderLoadLosesNoAcknowledgedPush() throws {
        let (a, b, _) = try startNodes(rules: Self.wideBurst, clock: "system")
        let (device, tokens) = try crashFleet(on: a)
        let load = try writers(to: a, tokens: tokens)
        Thread.sleep(forTimeInterval: 1.5)
        kill(a.processIdentifier, SIGKILL)
        load.closeInput()
        let outcome = try load.wait(timeout: 60)
        XCTAssertEqual(outcome.stderr, "", "every push before the kill got 200 or 429")
        let acked = acknowledged(outcome.stdout)
        print("cluster node kill: \(acked.count) pushes acknowledged before the kill")
        XCTAssertGreaterThan(acked.count, 50, "pushes were answered before the kill")
        let logged = try loggedPushes(device: device)
        let missing = acked.filter { !logged.contains($0) }
        XCTAssertEqual(missing, [], "\(missing.count) of \(acked.count) acknowledged pushes are not in Redis")
        // The other nodes go on.
        try pushSucceeds(through: b, token: tokens[0])
    }

    func testAKilledRedisMasterFailsOverWithoutLosingAnAcknowledgedPush() throws {
        // Two replicas per master: after a failover the new master still has one, so commits
        // that must reach a replica are acknowledged again.
        let (a, b, _) = try startNodes(
            rules: Self.wideBurst, clock: "system", extra: #""durability": {"replicas": 1, "replicaTimeout": 2}"#,
            replicasPerMaster: 2)
        let (device, tokens) = try crashFleet(on: a)
        let load = try writers(to: a, tokens: tokens)
        Thread.sleep(forTimeInterval: 1.5)
        let slot = HashSlot.slot(of: "{dev:\(device)}")
        let master = try redis.masterPort(forSlot: slot)
        redis.kill(port: master)
        askingPort = try XCTUnwrap(redis.nodes.first { $0.port != master }?.port)
        try redis.waitUntil("a replica serves the device's slot") {
            try redis.masterPort(forSlot: slot, askingPort: askingPort) != master
        }
        Thread.sleep(forTimeInterval: 2)
        kill(load.processIdentifier, SIGTERM)
        let outcome = try load.wait(timeout: 60)
        // During the failover pushes are answered 500 (not acknowledged); nothing else is.
        for line in outcome.stderr.split(separator: "\n") {
            XCTAssertTrue(line.hasSuffix("answered 500"), String(line))
        }
        let acked = acknowledged(outcome.stdout)
        print(
            "cluster failover: \(acked.count) pushes acknowledged, \(outcome.stderr.split(separator: "\n").count) refused"
        )
        XCTAssertGreaterThan(acked.count, 50, "pushes were answered")
        let logged = try loggedPushes(device: device)
        let missing = acked.filter { !logged.contains($0) }
        XCTAssertEqual(missing, [], "\(missing.count) of \(acked.count) acknowledged pushes are not in Redis")
        try pushSucceeds(through: a, token: tokens[1])
        try pushSucceeds(through: b, token: tokens[2])
    }
}
