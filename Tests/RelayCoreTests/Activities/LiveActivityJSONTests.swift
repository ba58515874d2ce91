import RelayCore
import RelayJSON
import XCTest

final class LiveActivityJSONTests: XCTestCase {
    private let t0 = Fixture.t0

    /// An activity with every optional part set: token, channel, stale date, drawn budget, held update, counters.
    private func busyActivity() throws -> LiveActivity {
        var activity = try LiveActivity.start(
            id: "act-9", deviceId: "dev-1", bundleId: "com.example.app", attributesType: "Delivery",
            attributes: ["order": "42", "items": [1, 2.5, true, nil]], contentState: ["eta": 5],
            staleDate: t0 + 600, relevanceScore: 12.5, pushToken: "abcd", channelId: "chan==", timestamp: t0 - 1,
            frequentPushesEnabled: false, rules: .defaults, at: t0)
        for number in 1...11 {
            _ = activity.update(
                ActivityUpdate(
                    contentState: Fixture.content(number), staleDate: t0 + 900, relevanceScore: 3,
                    alert: ["title": "Hi"],
                    timestamp: t0 + 7.25),
                source: .push(priority: 10), frequentPushesEnabled: false, rules: .defaults, at: t0 + 7.25)
        }
        _ = activity.update(
            Fixture.update(0, timestamp: t0), source: .app, frequentPushesEnabled: false, rules: .defaults, at: t0 + 8)
        return activity
    }

    func testRoundTripRestoresEveryField() throws {
        var running = try busyActivity()
        XCTAssertNotNil(running.pendingUpdate)
        var ended = running
        _ = ended.end(
            content: ["eta": 0], dismissalPolicy: .after(t0 + 3600), timestamp: nil, rules: .defaults, at: t0 + 60)
        var dismissed = running
        _ = dismissed.advance(to: t0 + 13 * 3600, rules: .defaults)
        _ = running.advance(to: t0 + 700, rules: .defaults)  // stale, held update applied
        for activity in [running, ended, dismissed, Fixture.activity()] {
            XCTAssertEqual(try LiveActivity.fromJSON(activity.json), activity, "\(activity.state)")
        }
    }

    func testRestoredActivityKeepsItsBudgetAndHeldUpdate() throws {
        let original = try busyActivity()
        var restored = try LiveActivity.fromJSON(original.json)
        var copy = original
        let update = Fixture.update(50, timestamp: t0 + 9)
        let outcome = restored.update(
            update, source: .push(priority: 10), frequentPushesEnabled: false, rules: .defaults, at: t0 + 9)
        XCTAssertEqual(
            outcome,
            copy.update(update, source: .push(priority: 10), frequentPushesEnabled: false, rules: .defaults, at: t0 + 9)
        )
        XCTAssertEqual(outcome.recordOutcome, "deferred")
        XCTAssertEqual(restored.advance(to: t0 + 3600, rules: .defaults), copy.advance(to: t0 + 3600, rules: .defaults))
    }

    func testShapeHasTheContractKeysAndPendingSummary() throws {
        let json = try busyActivity().json
        let contractKeys: Set = [
            "id", "deviceId", "bundleId", "attributesType", "attributes", "contentState", "state", "staleDate",
            "relevanceScore", "pushToken", "channelId", "startedAt", "endedAt", "dismissAt", "lastTimestamp",
        ]
        XCTAssertTrue(contractKeys.isSubset(of: Set(json.objectValue.map { Array($0.keys) } ?? [])))
        XCTAssertEqual(json["state"], "active")
        XCTAssertEqual(json["startedAt"], .int(Int64(t0)))
        XCTAssertEqual(json["lastTimestamp"], 1_767_225_607.25)
        XCTAssertEqual(json["endedAt"], .null)
        XCTAssertEqual(json["pendingUpdate"]?["reason"], "budget")
        XCTAssertEqual(json["pendingUpdate"]?["contentState"], Fixture.content(11))
        XCTAssertEqual(json["pendingUpdate"]?["alert"], ["title": "Hi"])
        XCTAssertEqual(json["updateBudget"]?["capacity"], 10)
        XCTAssertEqual(json["counters"]?["coalesced"], 0)
        XCTAssertEqual(Fixture.activity().json["pendingUpdate"], .null)
        XCTAssertEqual(Fixture.activity().json["pushToken"], .null)
    }

    func testDecodeErrorsNameTheKey() throws {
        let good = try busyActivity().json.objectValue ?? [:]
        let table: [(key: String, value: JSONValue?, path: String)] = [
            ("id", nil, "id"), ("id", 5, "id"), ("state", "paused", "state"), ("endedAt", 5, "endedAt"),
            ("startedAt", "now", "startedAt"), ("attributes", nil, "attributes"), ("updateBudget", nil, "updateBudget"),
            ("updateBudget", ["capacity": 10], "updateBudget.refillPerSecond"),
            (
                "pendingUpdate", ["contentState": [:], "releaseAt": 1, "timestamp": 1, "reason": "later"],
                "pendingUpdate.reason"
            ),
            ("pendingUpdate", ["contentState": [:], "reason": "budget", "timestamp": 1], "pendingUpdate.releaseAt"),
            ("counters", ["applied": -1], "counters.applied"), ("relevanceScore", .double(.nan), "relevanceScore"),
        ]
        for row in table {
            var members = good
            members[row.key] = row.value
            XCTAssertThrowsError(try LiveActivity.fromJSON(.object(members))) { error in
                XCTAssertEqual((error as? JSONFieldError)?.key, row.path, "\(row.key)")
            }
        }
        var ended = good
        ended["state"] = "ended"
        XCTAssertThrowsError(try LiveActivity.fromJSON(.object(ended))) { error in
            XCTAssertEqual((error as? JSONFieldError)?.key, "endedAt")
        }
        XCTAssertThrowsError(try LiveActivity.fromJSON([1])) { error in
            XCTAssertEqual((error as? JSONFieldError)?.key, "")
        }
    }
}
