import RelayCore
import RelayJSON
import XCTest

final class RelayRulesTests: XCTestCase {
    func testDefaults() {
        let rules = RelayRules.defaults
        XCTAssertEqual(rules.activeLifetime, 8 * 3600)
        XCTAssertEqual(rules.dismissalWindow, 4 * 3600)
        XCTAssertEqual(rules.maxVisibleLifetime, 12 * 3600)
        XCTAssertEqual(rules.maxActivityDataBytes, 4096)
        XCTAssertEqual(rules.updateBudgetPerHour, 10)
        XCTAssertEqual(rules.frequentUpdateBudgetPerHour, 60)
        XCTAssertFalse(rules.strictBudget)
        XCTAssertEqual(rules.lowPriorityDelay, 15)
        XCTAssertEqual(rules.pushToStartBudget, BucketRule(capacity: 10, refillInterval: 360))
        XCTAssertEqual(rules.tokenBurst, BucketRule(capacity: 20, refillInterval: 1))
        XCTAssertEqual(rules.providerTokenRefreshInterval, 1200)
        XCTAssertEqual(rules.updatesPerHour(frequentPushesEnabled: true), 60)
    }

    func testEmptyObjectGivesDefaultsAndJSONRoundTrips() throws {
        XCTAssertEqual(try RelayRules(json: [:]), .defaults)
        XCTAssertEqual(try RelayRules(json: RelayRules.defaults.json), .defaults)
        var custom = RelayRules()
        custom.strictBudget = true
        custom.lowPriorityDelay = 2.5
        custom.tokenBurst = BucketRule(capacity: 3, refillInterval: 0.5)
        XCTAssertEqual(try RelayRules(json: custom.json), custom)
    }

    func testPartialObjectsKeepOtherDefaults() throws {
        let rules = try RelayRules(json: [
            "activeLifetime": 600, "maxVisibleLifetime": 900, "strictBudget": true,
            "pushToStartBudget": ["capacity": 3],
        ])
        XCTAssertEqual(rules.activeLifetime, 600)
        XCTAssertEqual(rules.maxVisibleLifetime, 900)
        XCTAssertTrue(rules.strictBudget)
        XCTAssertEqual(rules.pushToStartBudget, BucketRule(capacity: 3, refillInterval: 360))
        XCTAssertEqual(rules.dismissalWindow, 4 * 3600)
        XCTAssertEqual(rules.tokenBurst, RelayRules.defaults.tokenBurst)
    }

    func testZeroIsAllowedWhereItMeansNoWait() throws {
        let rules = try RelayRules(json: [
            "dismissalWindow": 0, "lowPriorityDelay": 0, "providerTokenRefreshInterval": 0,
        ])
        XCTAssertEqual(rules.dismissalWindow, 0)
        XCTAssertEqual(rules.lowPriorityDelay, 0)
    }

    func testBadValuesAreErrorsNamingTheKey() {
        let table: [(json: JSONValue, key: String)] = [
            (["activeLifetime": "8h"], "activeLifetime"),
            (["activeLifetime": 0], "activeLifetime"),
            (["activeLifetime": 1e12], "activeLifetime"),
            (["dismissalWindow": -1], "dismissalWindow"),
            (["maxActivityDataBytes": 1.5], "maxActivityDataBytes"),
            (["maxActivityDataBytes": 2_000_000], "maxActivityDataBytes"),
            (["updateBudgetPerHour": 0], "updateBudgetPerHour"),
            (["frequentUpdateBudgetPerHour": -5], "frequentUpdateBudgetPerHour"),
            (["strictBudget": "yes"], "strictBudget"),
            (["lowPriorityDelay": .double(.infinity)], "lowPriorityDelay"),
            (["pushToStartBudget": ["capacity": 0]], "pushToStartBudget.capacity"),
            (["tokenBurst": ["refillInterval": 0]], "tokenBurst.refillInterval"),
            (["tokenBurst": ["rate": 1]], "tokenBurst.rate"),
            (["tokenBurst": 5], "tokenBurst"),
            (["bogus": 1], "bogus"),
            (["activeLifetime": 50_000], "maxVisibleLifetime"),
            ([1, 2], ""),
        ]
        for row in table {
            XCTAssertThrowsError(try RelayRules(json: row.json)) { error in
                XCTAssertEqual((error as? JSONFieldError)?.key, row.key, "\(row.json)")
            }
        }
    }

    func testErrorPathPrefixAndMessage() {
        XCTAssertThrowsError(try RelayRules(json: ["tokenBurst": ["capacity": -3]], path: "rules")) { error in
            let error = error as? JSONFieldError
            XCTAssertEqual(error?.key, "rules.tokenBurst.capacity")
            XCTAssertEqual(error?.found, -3)
            XCTAssertEqual(
                error?.description,
                "rules.tokenBurst.capacity: must be a whole number from 1 to 1000000 (found number -3)")
        }
    }
}
