import RelayCore
import RelayJSON
import XCTest

final class LiveActivityEndTests: XCTestCase {
    private let t0 = Fixture.t0
    private let hour = Fixture.hour

    func testDismissalFollowsThePolicy() {
        let end = t0 + 2 * hour
        let table: [(policy: DismissalPolicy, dismissAt: UnixSeconds, state: ActivityState)] = [
            (.default, end + 4 * hour, .ended),
            (.immediate, end, .dismissed),
            (.after(end + hour), end + hour, .ended),
            (.after(end + 10 * hour), end + 4 * hour, .ended),
            (.after(end - 60), end, .dismissed),
            (.fromPush(dismissalDate: end - 1, at: end), end, .dismissed),
        ]
        for row in table {
            var activity = Fixture.activity()
            let outcome = activity.end(
                content: nil, dismissalPolicy: row.policy, timestamp: nil, rules: .defaults, at: end)
            XCTAssertEqual(outcome, .ended(dismissAt: row.dismissAt), "\(row.policy)")
            XCTAssertEqual(activity.state, row.state)
            XCTAssertEqual(activity.endedAt, end)
            XCTAssertEqual(activity.dismissAt, row.dismissAt)
        }
    }

    func testDismissalNeverLaterThanMaxVisibleLifetime() {
        var rules = RelayRules()
        rules.maxVisibleLifetime = 10 * hour
        var activity = Fixture.activity(rules: rules)
        XCTAssertEqual(
            activity.end(content: nil, dismissalPolicy: .default, timestamp: nil, rules: rules, at: t0 + 7 * hour),
            .ended(dismissAt: t0 + 10 * hour))
        XCTAssertEqual(activity.advance(to: t0 + 10 * hour, rules: rules), [.dismissed(at: t0 + 10 * hour)])
    }

    func testEndTimestampOrdering() {
        let table: [(timestamp: UnixSeconds?, ends: Bool)] = [(t0 + 99, false), (t0 + 100, true), (nil, true)]
        for row in table {
            var activity = Fixture.activity()
            _ = activity.update(
                Fixture.update(1, timestamp: t0 + 100), source: .app, frequentPushesEnabled: false, rules: .defaults,
                at: t0 + 100)
            let outcome = activity.end(
                content: Fixture.content(2), dismissalPolicy: .default, timestamp: row.timestamp, rules: .defaults,
                at: t0 + 200)
            XCTAssertEqual(outcome, row.ends ? .ended(dismissAt: t0 + 200 + 4 * hour) : .ignoredStale(last: t0 + 100))
            XCTAssertEqual(activity.contentState, Fixture.content(row.ends ? 2 : 1))
            XCTAssertEqual(activity.state, row.ends ? .ended : .active)
        }
    }

    func testEndingTwiceIsRejectedWithTheFirstEnd() {
        var activity = Fixture.activity()
        _ = activity.end(content: nil, dismissalPolicy: .default, timestamp: nil, rules: .defaults, at: t0 + 50)
        XCTAssertEqual(
            activity.end(content: nil, dismissalPolicy: .immediate, timestamp: nil, rules: .defaults, at: t0 + 60),
            .rejectedEnded(endedAt: t0 + 50))
        XCTAssertEqual(activity.state, .ended)

        var expired = Fixture.activity()
        XCTAssertEqual(
            expired.end(content: nil, dismissalPolicy: .default, timestamp: nil, rules: .defaults, at: t0 + 8 * hour),
            .rejectedEnded(endedAt: t0 + 8 * hour))
    }

    func testFinalContentIsKeptOrReplacedAndSizeChecked() {
        var keeps = Fixture.activity()
        _ = keeps.end(content: nil, dismissalPolicy: .default, timestamp: nil, rules: .defaults, at: t0 + 1)
        XCTAssertEqual(keeps.contentState, Fixture.content(0))

        var tooLarge = Fixture.activity()
        let huge: JSONValue = ["c": .string(String(repeating: "x", count: 5000))]
        XCTAssertEqual(
            tooLarge.end(content: huge, dismissalPolicy: .default, timestamp: nil, rules: .defaults, at: t0 + 1),
            .rejectedTooLarge(bytes: 14 + 8 + 5000, limit: 4096))
        XCTAssertEqual(tooLarge.state, .active)

        var invalid = Fixture.activity()
        XCTAssertEqual(
            invalid.end(content: nil, dismissalPolicy: .after(.nan), timestamp: nil, rules: .defaults, at: t0 + 1),
            .rejectedInvalid(field: "dismissalDate"))
        XCTAssertEqual(
            invalid.end(content: nil, dismissalPolicy: .default, timestamp: .infinity, rules: .defaults, at: t0 + 1),
            .rejectedInvalid(field: "timestamp"))
    }

    func testEndingDropsAHeldUpdateWhetherOlderOrNewer() {
        for heldTimestamp in [t0 + 5, t0 + 50] {
            var activity = Fixture.activity()
            _ = activity.update(
                Fixture.update(1, timestamp: heldTimestamp), source: .push(priority: 5), frequentPushesEnabled: false,
                rules: .defaults, at: t0 + 5)
            XCTAssertNotNil(activity.pendingUpdate)
            XCTAssertEqual(
                activity.end(
                    content: Fixture.content(2), dismissalPolicy: .default, timestamp: t0 + 10, rules: .defaults,
                    at: t0 + 10),
                .ended(dismissAt: t0 + 10 + 4 * hour))
            XCTAssertNil(activity.pendingUpdate)
            XCTAssertEqual(activity.counters.discarded, 1)
            XCTAssertEqual(activity.contentState, Fixture.content(2))
            XCTAssertEqual(activity.advance(to: t0 + hour, rules: .defaults), [])
        }
    }
}
