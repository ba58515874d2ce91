import RelayCore
import XCTest

final class PushToStartBudgetTests: XCTestCase {
    private let t0: UnixSeconds = 1_767_225_600

    func testTenQuickStartsThenDroppedUntilRefill() {
        var budget = PushToStartBudget(rules: .defaults, at: t0)
        let starts = (0..<12).map { budget.take(rules: .defaults, at: t0 + Double($0)) }
        XCTAssertEqual(starts, Array(repeating: true, count: 10) + [false, false])
        XCTAssertEqual(budget.availableAt(t0 + 11), t0 + 360, accuracy: 1e-6)
        XCTAssertFalse(budget.take(rules: .defaults, at: t0 + 359))
        XCTAssertTrue(budget.take(rules: .defaults, at: t0 + 360))
        XCTAssertFalse(budget.take(rules: .defaults, at: t0 + 361))
        XCTAssertEqual(budget.remaining(at: t0 + 360 + 3600), 10)
        XCTAssertTrue(budget.isIdle(at: t0 + 360 + 3600))
        XCTAssertFalse(budget.isIdle(at: t0 + 360))
    }

    func testFollowsConfiguredRule() {
        var rules = RelayRules()
        rules.pushToStartBudget = BucketRule(capacity: 2, refillInterval: 10)
        var budget = PushToStartBudget(rules: .defaults, at: t0)
        XCTAssertEqual([true, true, false].map { _ in budget.take(rules: rules, at: t0) }, [true, true, false])
        XCTAssertTrue(budget.take(rules: rules, at: t0 + 10))
    }

    func testKeyIdentifiesDeviceAndApp() {
        let keys: Set = [
            PushToStartBudget.Key(deviceId: "d1", bundleId: "a"), PushToStartBudget.Key(deviceId: "d1", bundleId: "a"),
            PushToStartBudget.Key(deviceId: "d2", bundleId: "a"),
        ]
        XCTAssertEqual(keys.count, 2)
    }

    func testJSONRoundTrip() throws {
        var budget = PushToStartBudget(rules: .defaults, at: t0)
        _ = budget.take(rules: .defaults, at: t0)
        XCTAssertEqual(try PushToStartBudget(json: budget.json), budget)
    }
}

final class BurstLimiterTests: XCTestCase {
    private let t0: UnixSeconds = 1_767_225_600

    func testTwentyInABurstThenOnePerSecond() {
        var limiter = BurstLimiter(rules: .defaults, at: t0)
        let burst = (0..<21).map { _ in limiter.admit(rules: .defaults, at: t0) }
        XCTAssertEqual(burst, Array(repeating: true, count: 20) + [false])
        XCTAssertEqual(limiter.availableAt(t0), t0 + 1, accuracy: 1e-9)
        XCTAssertFalse(limiter.admit(rules: .defaults, at: t0 + 0.5))
        XCTAssertTrue(limiter.admit(rules: .defaults, at: t0 + 1))
        XCTAssertEqual(limiter.remaining(at: t0 + 5), 4)
        XCTAssertTrue(limiter.isIdle(at: t0 + 21))
    }

    func testSteadyRateAtTheRefillRateIsNeverLimited() {
        var limiter = BurstLimiter(rules: .defaults, at: t0)
        for second in 0..<100 { XCTAssertTrue(limiter.admit(rules: .defaults, at: t0 + Double(second))) }
        XCTAssertEqual(limiter.remaining(at: t0 + 99), 20 - 1)
    }

    func testJSONRoundTrip() throws {
        var limiter = BurstLimiter(rules: .defaults, at: t0)
        _ = limiter.admit(rules: .defaults, at: t0)
        XCTAssertEqual(try BurstLimiter(json: limiter.json), limiter)
    }
}
