import Foundation
import RelayCore
import RelayJSON
import RelayTestKit
import XCTest

/// The real binary (`activity-relay serve`) killed with SIGKILL while a provider sends device
/// pushes over HTTP/2: after every restart each push answered `200` is in the push log, and each
/// one the device applied is in its activity's state. A `200` is a promise.
final class ProviderCrashTests: XCTestCase {
    private static let bundle = "com.example.crash"
    private static let topic = bundle + ".push-type.liveactivity"

    /// A push the relay answered `200`, as `provider_writes.py` prints it.
    private struct Acknowledged {
        var apnsId: String
        var token: String
        var timestamp: Int64
    }

    /// The default durability: a `200` follows the commit's write to the log, which is synced to
    /// the disk in the background.
    func testEveryAcknowledgedPushSurvivesSIGKILL() throws {
        try killWhilePushing(try KillableRelay(name: "push-crash"))
    }

    /// With an `fdatasync` before every `200` (`durability.syncEachCommit`).
    func testEveryAcknowledgedPushSurvivesSIGKILLWhenEachCommitIsSynced() throws {
        try killWhilePushing(
            try KillableRelay(name: "push-crash-synced", config: #""durability": {"syncEachCommit": true}"#))
    }

    /// Kills `relay` five times while `provider_writes.py` pushes, and checks after each restart
    /// that every push answered `200` is there.
    private func killWhilePushing(_ relay: KillableRelay) throws {
        let api = relay.api
        let deviceId = try XCTUnwrap(api.expect(201, "POST", "/v1/devices")["deviceId"]?.stringValue)
        // Forty tokens: a token takes a burst of 20 pushes, then one a second (429 beyond).
        var tokens: [String] = []
        for index in 0..<40 {
            let activity = try api.expect(
                201, "POST", "/v1/activities",
                json: [
                    "deviceId": .string(deviceId), "bundleId": .string(Self.bundle),
                    "attributesType": "CrashAttributes",
                    "attributes": ["index": .int(Int64(index))], "contentState": ["n": 0], "pushType": "token",
                ])
            tokens.append(try XCTUnwrap(activity["pushToken"]?.stringValue))
        }
        let token = try ChildProcess.run([RelayBinary.path, "token", "--data", relay.data])
        XCTAssertEqual(token.status, 0, token.stderr)
        let jwt = token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        var acknowledged: [Acknowledged] = []
        for round in 0..<5 {
            // Each round's counters start above the last round's, so its pushes are the newest.
            let lines = try relay.killWhileWriting(
                { port in
                    ["python3", Fixtures.path("provider_writes.py"), String(port), relay.ca, jwt, Self.topic]
                        + [String(round * 100_000)] + tokens
                }, after: 0.5 + Double(round) * 0.2, round: round)
            let before = acknowledged.count
            for line in lines {
                let record = try JSONValue(parsing: String(line))
                acknowledged.append(
                    Acknowledged(
                        apnsId: try XCTUnwrap(record["apnsId"]?.stringValue),
                        token: try XCTUnwrap(record["token"]?.stringValue),
                        timestamp: try XCTUnwrap(record["timestamp"]?.int64Value)))
            }
            XCTAssertGreaterThan(acknowledged.count, before, "round \(round): pushes were answered before the kill")
            try verify(acknowledged, deviceId: deviceId, api: relay.api, round: round)
        }
        XCTAssertGreaterThan(acknowledged.count, 100, "enough pushes raced the kills")
        try relay.stop()
    }

    /// Every acknowledged push is in the push log with status 200; every one logged as applied
    /// shows in its activity's `lastTimestamp`.
    private func verify(_ acknowledged: [Acknowledged], deviceId: String, api: AppAPIClient, round: Int) throws {
        var logged: [String: JSONValue] = [:]
        var before: Int64?
        repeat {
            let path = "/v1/pushes?bundleId=\(Self.bundle)&limit=1000" + (before.map { "&before=\($0)" } ?? "")
            let page = try api.expect(200, "GET", path)
            for record in page["items"]?.arrayValue ?? [] {
                if let apnsId = record["apnsId"]?.stringValue { logged[apnsId] = record }
            }
            before = page["nextBefore"]?.int64Value
        } while before != nil

        let activities = try api.expect(200, "GET", "/v1/activities?deviceId=\(deviceId)")["items"]?.arrayValue ?? []
        var lastTimestamp: [String: Double] = [:]
        for activity in activities {
            if let token = activity["pushToken"]?.stringValue {
                lastTimestamp[token] = activity["lastTimestamp"]?.doubleValue ?? 0
            }
        }

        var applied = 0
        for push in acknowledged {
            guard let record = logged[push.apnsId] else {
                XCTFail("round \(round): push \(push.apnsId), answered 200, is not in the push log")
                continue
            }
            XCTAssertEqual(record["status"]?.int64Value, 200, "round \(round): \(push.apnsId)")
            XCTAssertEqual(record["token"]?.stringValue, push.token, "round \(round): \(push.apnsId)")
            guard record["outcome"]?.stringValue == "applied" else { continue }
            applied += 1
            XCTAssertGreaterThanOrEqual(
                lastTimestamp[push.token] ?? -1, Double(push.timestamp),
                "round \(round): the update of push \(push.apnsId) was lost from its activity")
        }
        XCTAssertGreaterThan(applied, 0, "round \(round): some acknowledged pushes were applied")
    }
}
