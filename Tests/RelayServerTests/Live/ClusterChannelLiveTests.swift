import Foundation
import RelayCore
import RelayJSON
import RelayNet
import RelayRedis
import RelayServer
import RelayTestKit
import XCTest

/// Broadcast channels and broadcasts on three relay nodes over one Redis Cluster (3 masters, 3
/// replicas): a channel made on one node is read, used and deleted on the others, a broadcast
/// through one node reaches activities started through another, and the answers are SQLite
/// mode's (`ChannelBroadcastLiveTests`).
final class ClusterChannelLiveTests: XCTestCase {
    private var redis: RedisClusterHarness!
    private var nodes: [KillableRelay] = []
    private static let bundle = "com.example.app"
    private static let requestID = "0a1b2c3d-4e5f-4a6b-9c7d-8e9f0a1b2c3d"

    override func tearDown() {
        nodes = []
        redis?.stop()
        redis = nil
    }

    private func startNodes() throws -> (KillableRelay, KillableRelay, KillableRelay) {
        redis = try RedisClusterHarness.start()
        let seeds = redis.seeds.map { "\"\($0)\"" }.joined(separator: ", ")
        let config = #""clock": "virtual", "store": {"redisCluster": {"seeds": [\#(seeds)]}}"#
        let first = try KillableRelay(name: "channels-a", config: config)
        nodes = [first]
        for name in ["channels-b", "channels-c"] {
            nodes.append(try KillableRelay(name: name, config: config, keysFrom: first.data))
        }
        return (nodes[0], nodes[1], nodes[2])
    }

    /// A provider token of the development key the nodes share.
    private func token(_ node: KillableRelay) throws -> String {
        let pem = try String(contentsOfFile: node.data + "/" + DataDirectory.devProviderKeyFileName, encoding: .utf8)
        return try JWTSigner.makeProviderToken(
            teamID: DataDirectory.devTeamID, keyID: DataDirectory.devKeyID,
            issuedAt: Int64(Date().timeIntervalSince1970), key: try P256PrivateKey(pem: pem))
    }

    /// `requests` over one HTTP/2 connection to `node` with `provider_h2.py`; the answers in order.
    private func h2(_ node: KillableRelay, _ requests: [H2Request]) throws -> [H2Result.Answer] {
        let input = node.data + "/h2-\(UUID().uuidString).json"
        try JSONSerialization.data(withJSONObject: ["connections": [["requests": requests.map(\.json)]]])
            .write(to: URL(fileURLWithPath: input))
        let outcome = try ChildProcess.run(
            [
                "python3", Fixtures.path("provider_h2.py"), "--port", String(node.port), "--cafile", node.ca, "--input",
                input,
            ],
            timeout: 120)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let list = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]], outcome.stderr)
        return try XCTUnwrap(list.first.map(H2Result.init)).answers
    }

    private func channels(
        _ jwt: String, method: String, bundle: String = bundle, channel: String? = nil, body: String? = nil,
        all: Bool = false
    ) -> H2Request {
        var headers = [("authorization", "bearer \(jwt)")]
        if let channel { headers.append(("apns-channel-id", channel)) }
        return H2Request(
            method: method, path: "/1/apps/\(bundle)/" + (all ? "all-channels" : "channels"), headers: headers,
            body: body)
    }

    private func broadcast(_ jwt: String, channel: String, score: String, at timestamp: Int64) -> H2Request {
        H2Request(
            path: "/4/broadcasts/apps/\(Self.bundle)",
            headers: [
                ("authorization", "bearer \(jwt)"), ("apns-push-type", "LiveActivity"), ("apns-priority", "10"),
                ("apns-channel-id", channel), ("apns-request-id", Self.requestID),
            ],
            body: #"{"aps":{"event":"update","timestamp":\#(timestamp),"content-state":{"score":"\#(score)"}}}"#)
    }

    /// An activity on `channel` of a new device, started through `node`: the device and activity.
    private func subscribe(on node: KillableRelay, channel: String) throws -> (device: String, activity: String) {
        let device = try XCTUnwrap(node.api.expect(201, "POST", "/v1/devices", json: [:])["deviceId"]?.stringValue)
        let started = try node.api.expect(
            201, "POST", "/v1/activities",
            json: [
                "deviceId": .string(device), "bundleId": .string(Self.bundle), "attributesType": "GameAttributes",
                "attributes": ["match": "A-B"], "contentState": ["score": "0-0"],
                "pushType": ["channel": .string(channel)],
            ])
        return (device, try XCTUnwrap(started["id"]?.stringValue))
    }

    /// The values of `field` in `key`'s stream entries, in order (via the key's master).
    private func streamField(_ key: String, _ field: String) throws -> [String] {
        let text = try redis.cli(try redis.masterPort(forSlot: HashSlot.slot(of: key)), ["XRANGE", key, "-", "+"])
        let lines = text.split(separator: "\n").map(String.init)
        return zip(lines, lines.dropFirst()).compactMap { $0.0 == field ? $0.1 : nil }
    }

    func testChannelsAndBroadcastsAreClusterWide() throws {
        let (a, b, c) = try startNodes()
        let jwt = try token(a)
        let policy1 = #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#
        let created = try XCTUnwrap(try h2(a, [channels(jwt, method: "POST", body: policy1)]).first)
        XCTAssertEqual(created.status, 201, created.body)
        let channel = try XCTUnwrap(created.headers["apns-channel-id"])
        XCTAssertNotNil(Base64Codec.decode(channel), "a base64 channel id, as APNs makes")

        // Node B reads what node A made.
        let read = try h2(
            b, [channels(jwt, method: "GET", channel: channel), channels(jwt, method: "GET", all: true)])
        XCTAssertEqual(read.map(\.status), [200, 200])
        XCTAssertEqual(read[0].json?["message-storage-policy"] as? Int, 1)
        XCTAssertEqual(read[0].json?["push-type"] as? String, "LiveActivity")
        XCTAssertEqual(read[1].json?["channels"] as? [String], [channel])

        // An activity subscribed through C, a broadcast through B, read through A.
        let (device, first) = try subscribe(on: c, channel: channel)
        let now = Int64(try XCTUnwrap(a.api.expect(200, "GET", "/v1/clock")["now"]?.doubleValue))
        let sent = try XCTUnwrap(try h2(b, [broadcast(jwt, channel: channel, score: "2-1", at: now + 1)]).first)
        XCTAssertEqual(sent.status, 200, sent.body)
        XCTAssertEqual(sent.headers["apns-request-id"], Self.requestID)
        XCTAssertNotNil(sent.headers["apns-unique-id"])
        XCTAssertEqual(sent.body, "")
        XCTAssertEqual(try a.api.expect(200, "GET", "/v1/activities/\(first)")["contentState"], ["score": "2-1"])
        let types = try streamField("{dev:\(device)}:ev", "t")
        XCTAssertEqual(types.filter { $0 == "activity.updated" }.count, 1, "\(types)")
        // The broadcast's record is in the log of pushes that name no device.
        let logged = try redis.cli(
            try redis.masterPort(forSlot: HashSlot.slot(of: "{relay}:log")), ["LRANGE", "{relay}:log", "0", "-1"])
        XCTAssertTrue(logged.contains(Self.requestID) && logged.contains("\"broadcast\""), logged)
        // Its push.received event is in the fleet feed, once.
        let fed = zip(try streamField("{relay}:feed", "t"), try streamField("{relay}:feed", "d"))
        XCTAssertEqual(
            fed.filter { $0.0 == "push.received" && $0.1.contains(Self.requestID) }.count, 1, "\(Array(fed))")

        // An activity that joins later, through A, gets the stored message.
        let (_, later) = try subscribe(on: a, channel: channel)
        XCTAssertEqual(try b.api.expect(200, "GET", "/v1/activities/\(later)")["contentState"], ["score": "2-1"])
        // So does one that a push-to-start through B starts on the channel, read through C.
        let starter = try XCTUnwrap(b.api.expect(201, "POST", "/v1/devices", json: [:])["deviceId"]?.stringValue)
        let startToken = try XCTUnwrap(
            b.api.expect(
                201, "POST", "/v1/devices/\(starter)/apps/\(Self.bundle)/push-to-start-tokens",
                json: ["attributesType": "GameAttributes"])["token"]?.stringValue)
        let start =
            #"{"aps":{"event":"start","timestamp":\#(now - 1),"attributes-type":"GameAttributes","attributes":{},"#
            + #""content-state":{"score":"0-0"},"input-push-channel":"\#(channel)","alert":{"title":"Kick-off"}}}"#
        let pushed = try XCTUnwrap(
            try h2(
                b,
                [
                    H2Request(
                        path: "/3/device/\(startToken)",
                        headers: [
                            ("authorization", "bearer \(jwt)"), ("apns-topic", Self.bundle + ".push-type.liveactivity"),
                            ("apns-push-type", "liveactivity"), ("apns-priority", "10"),
                        ], body: start)
                ]
            ).first)
        XCTAssertEqual(pushed.status, 200, pushed.body)
        let startedByPush = try c.api.expect(200, "GET", "/v1/activities?deviceId=\(starter)")["items"]?.arrayValue
        XCTAssertEqual(startedByPush?.first?["contentState"], ["score": "2-1"], "\(startedByPush ?? [])")

        // The per-app cap: an app with 10,000 channels (ids put straight into its set).
        let full = "chapp:{com.example.full}"
        let ids = (0..<BroadcastChannel.maxChannelsPerApp).map { "full-\($0)" }
        _ = try redis.cli(try redis.masterPort(forSlot: HashSlot.slot(of: full)), ["SADD", full] + ids)
        let unknown = "AAAAAAAAAAAAAAAAAAAAAA=="
        let refused = try h2(
            c,
            [
                channels(jwt, method: "POST", bundle: "com.example.full", body: policy1),
                channels(jwt, method: "GET", channel: unknown),
                broadcast(jwt, channel: unknown, score: "9-9", at: now + 2),
            ])
        XCTAssertEqual(refused.map(\.status), [400, 400, 400])
        XCTAssertEqual(
            refused.map { $0.reason ?? $0.body },
            ["CannotCreateChannelConfig", "ChannelNotRegistered", "ChannelNotRegistered"])

        // Deleted on C: B's broadcast is refused, A lists nothing, the activities keep their content.
        let deleted = try XCTUnwrap(try h2(c, [channels(jwt, method: "DELETE", channel: channel)]).first)
        XCTAssertEqual(deleted.status, 204, deleted.body)
        let gone = try XCTUnwrap(try h2(b, [broadcast(jwt, channel: channel, score: "3-1", at: now + 3)]).first)
        XCTAssertEqual(gone.status, 400)
        XCTAssertEqual(gone.reason, "ChannelNotRegistered")
        XCTAssertEqual(gone.headers["apns-request-id"], Self.requestID)
        let listed = try XCTUnwrap(try h2(a, [channels(jwt, method: "GET", all: true)]).first)
        XCTAssertEqual(listed.json?["channels"] as? [String], [])
        XCTAssertEqual(try c.api.expect(200, "GET", "/v1/activities/\(first)")["contentState"], ["score": "2-1"])
    }
}
