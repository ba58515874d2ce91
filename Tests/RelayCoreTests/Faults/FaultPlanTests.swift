import RelayCore
import RelayJSON
import XCTest

/// `FaultPlan`: which pushes the rules hit, reproducibly from their seeds.
final class FaultPlanTests: XCTestCase {
    private func plan(_ rules: [JSONValue], seed: UInt64 = 1) throws -> FaultPlan {
        var plan = FaultPlan(seed: seed)
        for json in rules {
            let (rule, ownSeed) = try FaultRule.parse(json, createdAt: 1000)
            XCTAssertNotNil(plan.add(rule, ownSeed: ownSeed))
        }
        return plan
    }

    /// The kinds of answer rule the pushes get (`-` for none).
    private func run(_ plan: inout FaultPlan, _ count: Int, bundle: String = "com.a", token: String = "aa") -> [String]
    {
        (1...count).map { index in
            plan.decide(bundleId: bundle, token: token, connectionPushes: index).rule?.action.kind ?? "-"
        }
    }

    func testCountHitsTheNextNPushesOnly() throws {
        var plan = try plan([["kind": "error", "status": 500, "count": 2]])
        XCTAssertEqual(run(&plan, 4), ["error", "error", "-", "-"])
        XCTAssertEqual(plan.rules[0].json["count"], 0)
        XCTAssertEqual(plan.rules[0].json["matched"], 4)
        XCTAssertEqual(plan.rules[0].json["injected"], 2)
    }

    func testAShareIsReproducibleFromTheSeedAndRoughlyItsShare() throws {
        var first = try plan([["kind": "error", "status": 503, "share": 0.3]], seed: 42)
        var second = try plan([["kind": "error", "status": 503, "share": 0.3]], seed: 42)
        var other = try plan([["kind": "error", "status": 503, "share": 0.3]], seed: 43)
        let a = run(&first, 1000)
        XCTAssertEqual(a, run(&second, 1000))
        XCTAssertNotEqual(a, run(&other, 1000))
        let hits = a.filter { $0 == "error" }.count
        XCTAssertTrue((200...400).contains(hits), "\(hits) of 1000 at a share of 0.3")
    }

    func testARuleSeedOverridesThePlanSeed() throws {
        var first = try plan([["kind": "reset", "share": 0.5, "seed": 9]], seed: 1)
        var second = try plan([["kind": "reset", "share": 0.5, "seed": 9]], seed: 2)
        XCTAssertEqual(run(&first, 200), run(&second, 200))
        XCTAssertEqual(first.rules[0].seed, 9)
    }

    func testScopeByBundleAndToken() throws {
        var plan = try plan([
            ["kind": "error", "status": 500, "bundleId": "com.b"], ["kind": "reset", "token": "ABCD"],
        ])
        XCTAssertEqual(run(&plan, 1, bundle: "com.a", token: "aa"), ["-"])
        XCTAssertEqual(run(&plan, 1, bundle: "com.b", token: "aa"), ["error"])
        XCTAssertEqual(run(&plan, 1, bundle: "com.a", token: "abcd"), ["reset"], "tokens compare in lowercase")
    }

    func testGoawayWaitsForItsStreams() throws {
        var plan = try plan([["kind": "goaway", "afterStreams": 2, "count": 1]])
        XCTAssertEqual(run(&plan, 4), ["-", "-", "goaway", "-"])
    }

    func testLatencyAddsUpAndTheFirstAnsweringRuleWins() throws {
        var plan = try plan([
            ["kind": "latency", "ms": 100], ["kind": "latency", "minMs": 10, "maxMs": 20],
            ["kind": "error", "status": 429, "count": 1], ["kind": "reset", "count": 1],
        ])
        let decision = plan.decide(bundleId: "com.a", token: "aa", connectionPushes: 1)
        XCTAssertEqual(decision.rule?.id, "f3")
        XCTAssertEqual(decision.latencyRules, ["f1", "f2"])
        XCTAssertTrue((110...120).contains(decision.latencyMs), "\(decision.latencyMs)")
        XCTAssertEqual(decision.json["kind"], "error")
        XCTAssertEqual(plan.rules[3].json["matched"], 0, "not tried once an earlier rule answered")
        XCTAssertEqual(plan.decide(bundleId: "com.a", token: "aa", connectionPushes: 2).rule?.id, "f4")
    }

    func testHandshakeWindowsFollowTheGivenTime() throws {
        var plan = try plan([["kind": "refuseHandshakes", "seconds": 5]])
        XCTAssertNotNil(plan.refuseHandshake(at: 1000))
        XCTAssertNotNil(plan.refuseHandshake(at: 1004.9))
        XCTAssertNil(plan.refuseHandshake(at: 1005))
        XCTAssertTrue(run(&plan, 1) == ["-"], "handshake rules never answer pushes")
        XCTAssertEqual(plan.rules[0].json["injected"], 2)
        XCTAssertEqual(plan.rules[0].json["until"], 1005)
    }

    func testRemoveAndIdsThatKeepCounting() throws {
        var plan = try plan([["kind": "reset"], ["kind": "reset"]])
        XCTAssertTrue(plan.remove("f1"))
        XCTAssertFalse(plan.remove("f1"))
        plan.removeAll()
        let (rule, _) = try FaultRule.parse(["kind": "reset"], createdAt: 0)
        XCTAssertEqual(plan.add(rule, ownSeed: false)?.id, "f3")
    }
}
