import RelayCore
import RelayJSON
import XCTest

final class DismissalPolicyTests: XCTestCase {
    private let t0: UnixSeconds = 1_767_225_600
    private let hour: Double = 3600

    func testParsesTheAppAPIShapes() throws {
        let table: [(json: JSONValue, policy: DismissalPolicy)] = [
            ("default", .default), ("immediate", .immediate), (["after": 100], .after(100)),
            (["after": 1.5], .after(1.5)),
        ]
        for row in table {
            XCTAssertEqual(try DismissalPolicy(json: row.json), row.policy)
            XCTAssertEqual(row.policy.json, row.json)
        }
    }

    func testRejectsOtherShapesNamingTheKey() {
        let table: [(json: JSONValue, key: String)] = [
            ("later", "dismissalPolicy"), (5, "dismissalPolicy"), (nil, "dismissalPolicy"),
            (["after": "soon"], "dismissalPolicy.after"), ([:], "dismissalPolicy.after"),
            (["after": 1, "at": 2], "dismissalPolicy.at"),
        ]
        for row in table {
            XCTAssertThrowsError(try DismissalPolicy(json: row.json)) { error in
                XCTAssertEqual((error as? JSONFieldError)?.key, row.key, "\(row.json)")
            }
        }
    }

    func testPolicyFromPushDismissalDate() {
        let table: [(date: UnixSeconds?, policy: DismissalPolicy)] = [
            (nil, .default), (t0 - 1, .immediate), (t0, .immediate), (t0 + 1, .after(t0 + 1)), (0, .immediate),
        ]
        for row in table {
            XCTAssertEqual(
                DismissalPolicy.fromPush(dismissalDate: row.date, at: t0), row.policy, "\(String(describing: row.date))"
            )
        }
    }

    func testDismissalTimes() {
        var short = RelayRules()
        short.maxVisibleLifetime = 10 * hour
        let table: [(policy: DismissalPolicy, started: Double, ended: Double, rules: RelayRules, dismiss: Double)] = [
            (.default, 0, 2, .defaults, 6),
            (.immediate, 0, 2, .defaults, 2),
            (.after(t0 + 1 * hour), 0, 2, .defaults, 2),  // in the past: at the end
            (.after(t0 + 3 * hour), 0, 2, .defaults, 3),
            (.after(t0 + 6 * hour), 0, 2, .defaults, 6),  // exactly end + window
            (.after(t0 + 9 * hour), 0, 2, .defaults, 6),  // capped at end + window
            (.default, 0, 8, .defaults, 12),  // system end: exactly 12 h after start
            (.default, 0, 7, short, 10),  // capped at start + max visible lifetime
            (.after(t0 + 9.5 * hour), 0, 7, short, 9.5),
            (.after(t0 + 11 * hour), 0, 7, short, 10),
            (.default, 0, 11, short, 11),  // never before the end
        ]
        for row in table {
            let dismiss = row.policy.dismissAt(
                endedAt: t0 + row.ended * hour, startedAt: t0 + row.started * hour, rules: row.rules)
            XCTAssertEqual(dismiss, t0 + row.dismiss * hour, "\(row.policy) ended \(row.ended) h")
        }
    }
}
