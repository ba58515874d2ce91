import RelayCore
import XCTest

final class UpdateBudgetTests: XCTestCase {
    private let t0: UnixSeconds = 1_767_225_600

    func testHourlyBudgetNormalAndFrequent() {
        let table: [(frequent: Bool, allowed: Int, nextTokenAfter: Double)] = [(false, 10, 360), (true, 60, 60)]
        for row in table {
            var budget = UpdateBudget(frequentPushesEnabled: row.frequent, rules: .defaults, at: t0)
            for index in 0..<row.allowed { XCTAssertTrue(budget.take(at: t0), "take \(index)") }
            XCTAssertFalse(budget.take(at: t0))
            XCTAssertEqual(budget.availableAt(t0), t0 + row.nextTokenAfter, accuracy: 1e-6)
            XCTAssertTrue(budget.take(at: budget.availableAt(t0)))
        }
    }

    func testBudgetFullyRefillsAfterAnHour() {
        var budget = UpdateBudget(frequentPushesEnabled: false, rules: .defaults, at: t0)
        for _ in 0..<10 { _ = budget.take(at: t0) }
        XCTAssertEqual(budget.remaining(at: t0 + 1800), 5)
        XCTAssertEqual(budget.remaining(at: t0 + 3600), 10)
        XCTAssertEqual(budget.remaining(at: t0 + 7200), 10)
    }

    func testSwitchingFrequentPushesKeepsDrawnTokens() {
        var budget = UpdateBudget(frequentPushesEnabled: false, rules: .defaults, at: t0)
        for _ in 0..<3 { _ = budget.take(at: t0) }
        XCTAssertTrue(budget.configure(frequentPushesEnabled: true, rules: .defaults, at: t0))
        XCTAssertEqual(budget.remaining(at: t0), 57)
        XCTAssertFalse(budget.configure(frequentPushesEnabled: true, rules: .defaults, at: t0))
        for _ in 0..<10 { _ = budget.take(at: t0) }
        XCTAssertTrue(budget.configure(frequentPushesEnabled: false, rules: .defaults, at: t0))
        XCTAssertEqual(budget.remaining(at: t0), 0)
        XCTAssertFalse(budget.frequentPushesEnabled)
    }

    func testBudgetFollowsChangedRules() {
        var rules = RelayRules()
        var budget = UpdateBudget(frequentPushesEnabled: false, rules: rules, at: t0)
        _ = budget.take(at: t0)
        rules.updateBudgetPerHour = 20
        budget.configure(frequentPushesEnabled: false, rules: rules, at: t0)
        XCTAssertEqual(budget.remaining(at: t0), 19)
        XCTAssertEqual(budget.bucket.refillPerSecond, 20.0 / 3600)
    }

    func testBudgetBelowOnePerHourCountsAsOne() {
        var rules = RelayRules()
        rules.updateBudgetPerHour = 0
        var budget = UpdateBudget(frequentPushesEnabled: false, rules: rules, at: t0)
        XCTAssertTrue(budget.take(at: t0))
        XCTAssertFalse(budget.take(at: t0))
        XCTAssertEqual(budget.availableAt(t0), t0 + 3600, accuracy: 1e-6)
    }

    func testJSONRoundTrip() throws {
        var budget = UpdateBudget(frequentPushesEnabled: true, rules: .defaults, at: t0)
        _ = budget.take(at: t0 + 1)
        let restored = try UpdateBudget(json: budget.json)
        XCTAssertEqual(restored, budget)
        XCTAssertThrowsError(
            try UpdateBudget(json: ["capacity": 1, "refillPerSecond": 1, "tokens": 1, "updatedAt": 1])
        ) {
            XCTAssertEqual(($0 as? JSONFieldError)?.key, "frequentPushesEnabled")
        }
    }
}
