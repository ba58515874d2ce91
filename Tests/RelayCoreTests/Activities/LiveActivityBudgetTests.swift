import RelayCore
import XCTest

final class LiveActivityBudgetTests: XCTestCase {
    private let t0 = Fixture.t0

    /// Sends `count` priority-10 pushes at `at`, numbered from `first`, and returns their outcomes.
    private func push(
        _ activity: inout LiveActivity, count: Int, first: Int = 1, priority: Int = 10, frequent: Bool = false,
        rules: RelayRules = .defaults, at: UnixSeconds
    ) -> [ActivityUpdateOutcome] {
        (first..<first + count).map { number in
            activity.update(
                Fixture.update(number, timestamp: at), source: .push(priority: priority),
                frequentPushesEnabled: frequent,
                rules: rules, at: at)
        }
    }

    func testPriorityTenIsAppliedWithinBudgetThenDeferredToTheNextToken() {
        let table: [(frequent: Bool, allowed: Int, tokenEvery: Double)] = [(false, 10, 360), (true, 60, 60)]
        for row in table {
            var activity = Fixture.activity()
            let outcomes = push(&activity, count: row.allowed, frequent: row.frequent, at: t0)
            XCTAssertEqual(outcomes, Array(repeating: .applied, count: row.allowed))
            let over = push(&activity, count: 1, first: 100, frequent: row.frequent, at: t0)[0]
            guard case .deferred(let until, .budget) = over else { return XCTFail("expected deferral, got \(over)") }
            XCTAssertEqual(until, t0 + row.tokenEvery, accuracy: 1e-6)
            XCTAssertEqual(activity.contentState, Fixture.content(row.allowed))
            XCTAssertEqual(activity.nextDeadline, until)
            XCTAssertEqual(activity.advance(to: until - 1, rules: .defaults), [])
            XCTAssertEqual(
                activity.advance(to: until, rules: .defaults),
                [.deferredUpdateApplied(at: until, update: Fixture.update(100, timestamp: t0))])
            XCTAssertEqual(activity.contentState, Fixture.content(100))
            XCTAssertEqual(activity.updateBudget.remaining(at: until), 0)
            XCTAssertNil(activity.pendingUpdate)
        }
    }

    func testCoalescingKeepsOnlyTheLatestHeldUpdate() {
        var activity = Fixture.activity()
        _ = push(&activity, count: 10, at: t0)
        let outcomes = [10.0, 20, 30].enumerated().map { index, offset in
            push(&activity, count: 1, first: 11 + index, at: t0 + offset)[0]
        }
        XCTAssertEqual(outcomes.map(\.recordOutcome), ["deferred", "deferred", "deferred"])
        guard case .deferred = outcomes[0], case .coalesced = outcomes[1], case .coalesced = outcomes[2] else {
            return XCTFail("\(outcomes)")
        }
        XCTAssertEqual(activity.pendingUpdate?.update, Fixture.update(13, timestamp: t0 + 30))
        let transitions = activity.advance(to: t0 + 3600, rules: .defaults)
        XCTAssertEqual(transitions.count, 1)
        guard case .deferredUpdateApplied(_, let applied)? = transitions.first else { return XCTFail("\(transitions)") }
        XCTAssertEqual(applied.contentState, Fixture.content(13))
        XCTAssertEqual(activity.counters.deferred, 1)
        XCTAssertEqual(activity.counters.coalesced, 2)
        XCTAssertEqual(activity.counters.discarded, 2)
        XCTAssertEqual(activity.counters.applied, 11)
    }

    /// A held update is kept behind one shared reference; a copy that changes is its own, so an
    /// activity's recorded snapshot keeps the held update it recorded.
    func testACopyOfAHeldUpdateChangesAlone() {
        let held = PendingUpdate(
            update: Fixture.update(1, timestamp: nil), timestamp: t0, releaseAt: t0 + 60, reason: .budget)
        var moved = held
        moved.releaseAt = t0 + 120
        moved.reason = .lowPriority
        moved.update = Fixture.update(2, timestamp: t0 + 5)
        XCTAssertEqual(held.releaseAt, t0 + 60)
        XCTAssertEqual(held.reason, .budget)
        XCTAssertEqual(held.update, Fixture.update(1, timestamp: t0))
        XCTAssertEqual(held.timestamp, t0)
        XCTAssertEqual(moved.timestamp, t0 + 5)
        XCTAssertNotEqual(held, moved)
        XCTAssertEqual(
            held,
            PendingUpdate(update: Fixture.update(1, timestamp: t0), timestamp: t0, releaseAt: t0 + 60, reason: .budget))
    }

    func testHeldUpdateIsNotReplacedByAnOlderOne() {
        var activity = Fixture.activity()
        _ = push(&activity, count: 10, at: t0)
        _ = push(&activity, count: 1, first: 11, at: t0 + 30)
        let older = activity.update(
            Fixture.update(12, timestamp: t0 + 20), source: .push(priority: 10), frequentPushesEnabled: false,
            rules: .defaults, at: t0 + 40)
        XCTAssertEqual(older, .ignoredStale(last: t0 + 30))
        XCTAssertEqual(activity.pendingUpdate?.update.contentState, Fixture.content(11))
    }

    func testStrictModeRefusesOverBudget() {
        var rules = RelayRules()
        rules.strictBudget = true
        var activity = Fixture.activity(rules: rules)
        XCTAssertEqual(push(&activity, count: 10, rules: rules, at: t0), Array(repeating: .applied, count: 10))
        let over = push(&activity, count: 1, first: 11, rules: rules, at: t0 + 100)[0]
        guard case .refusedOverBudget(let retryAt) = over else { return XCTFail("\(over)") }
        XCTAssertEqual(retryAt, t0 + 360, accuracy: 1e-6)
        XCTAssertNil(activity.pendingUpdate)
        XCTAssertEqual(activity.counters.refusedOverBudget, 1)
        XCTAssertEqual(push(&activity, count: 1, first: 12, rules: rules, at: retryAt), [.applied])
        // Priority 5 is never refused, even in strict mode.
        XCTAssertEqual(
            push(&activity, count: 1, first: 13, priority: 5, rules: rules, at: retryAt)[0].recordOutcome, "deferred")
    }

    func testBudgetRefillsOverTheHour() {
        var activity = Fixture.activity()
        _ = push(&activity, count: 10, at: t0)
        XCTAssertEqual(
            push(&activity, count: 3, first: 11, at: t0 + 1080).map(\.recordOutcome), ["applied", "applied", "applied"])
        XCTAssertEqual(push(&activity, count: 1, first: 14, at: t0 + 1080)[0].recordOutcome, "deferred")
        // An hour later the held update has been applied at t0 + 1440 with that token; 9 more are back since.
        let later = push(&activity, count: 10, first: 20, at: t0 + 1080 + 3600)
        XCTAssertEqual(later.filter { $0 == .applied }.count, 9)
        XCTAssertEqual(activity.counters.applied, 10 + 3 + 1 + 9)
    }

    func testSwitchingToFrequentPushesKeepsDrawnTokensAndReleasesHeldUpdateEarlier() {
        var activity = Fixture.activity()
        _ = push(&activity, count: 10, at: t0)
        _ = push(&activity, count: 1, first: 11, at: t0)
        XCTAssertEqual(activity.pendingUpdate?.releaseAt ?? 0, t0 + 360, accuracy: 1e-6)
        activity.setFrequentPushesEnabled(true, rules: .defaults, at: t0 + 10)
        XCTAssertEqual(activity.updateBudget.remaining(at: t0 + 10), 50)
        XCTAssertEqual(activity.nextDeadline, t0 + 10)
        XCTAssertEqual(
            activity.advance(to: t0 + 10, rules: .defaults),
            [.deferredUpdateApplied(at: t0 + 10, update: Fixture.update(11, timestamp: t0))])
        let outcomes = push(&activity, count: 50, first: 12, frequent: true, at: t0 + 10)
        XCTAssertEqual(outcomes.filter { $0 == .applied }.count, 49)
        XCTAssertEqual(outcomes.last?.recordOutcome, "deferred")
    }

    func testAppliedUpdateDropsAnOlderHeldOneButKeepsANewerOne() {
        var activity = Fixture.activity()
        _ = push(&activity, count: 10, at: t0)
        _ = push(&activity, count: 1, first: 11, at: t0 + 5)
        _ = activity.update(
            Fixture.update(12, timestamp: t0 + 6), source: .app, frequentPushesEnabled: false, rules: .defaults,
            at: t0 + 6)
        XCTAssertNil(activity.pendingUpdate)
        XCTAssertEqual(activity.counters.discarded, 1)

        var other = Fixture.activity()
        _ = push(&other, count: 1, first: 1, priority: 5, at: t0 + 10)
        XCTAssertEqual(
            other.update(
                Fixture.update(2, timestamp: t0 + 8), source: .push(priority: 10), frequentPushesEnabled: false,
                rules: .defaults, at: t0 + 11),
            .applied)
        XCTAssertEqual(other.pendingUpdate?.update.contentState, Fixture.content(1))
        XCTAssertEqual(
            other.advance(to: t0 + 25, rules: .defaults),
            [.deferredUpdateApplied(at: t0 + 25, update: Fixture.update(1, timestamp: t0 + 10))])
        XCTAssertEqual(other.lastTimestamp, t0 + 10)
    }

    func testLowPriorityIsHeldForTheDelayWithoutDrawing() {
        for priority in [5, 1] {
            var activity = Fixture.activity()
            let outcome = push(&activity, count: 1, priority: priority, at: t0 + 100)[0]
            XCTAssertEqual(outcome, .deferred(until: t0 + 115, reason: .lowPriority), "priority \(priority)")
            XCTAssertEqual(activity.updateBudget.remaining(at: t0 + 100), 10)
            XCTAssertEqual(activity.advance(to: t0 + 114.9, rules: .defaults), [])
            XCTAssertEqual(
                activity.advance(to: t0 + 115, rules: .defaults),
                [.deferredUpdateApplied(at: t0 + 115, update: Fixture.update(1, timestamp: t0 + 100))])
            XCTAssertEqual(activity.updateBudget.remaining(at: t0 + 115), 10)
        }
    }

    func testLaterLowPriorityUpdatesCoalesceKeepingTheFirstReleaseTime() {
        var activity = Fixture.activity()
        let outcomes = [100.0, 105, 110].enumerated().map { index, offset in
            push(&activity, count: 1, first: index + 1, priority: 5, at: t0 + offset)[0]
        }
        XCTAssertEqual(
            outcomes,
            [
                .deferred(until: t0 + 115, reason: .lowPriority), .coalesced(until: t0 + 115, reason: .lowPriority),
                .coalesced(until: t0 + 115, reason: .lowPriority),
            ])
        XCTAssertEqual(
            activity.advance(to: t0 + 200, rules: .defaults),
            [.deferredUpdateApplied(at: t0 + 115, update: Fixture.update(3, timestamp: t0 + 110))])
    }

    func testNewestHeldUpdateDecidesHowItIsReleased() {
        // Budget-held replaced by low priority: released after the delay, drawing nothing.
        var activity = Fixture.activity()
        _ = push(&activity, count: 10, at: t0)
        _ = push(&activity, count: 1, first: 11, at: t0)
        XCTAssertEqual(
            push(&activity, count: 1, first: 12, priority: 5, at: t0 + 10),
            [.coalesced(until: t0 + 25, reason: .lowPriority)])
        XCTAssertEqual(activity.advance(to: t0 + 25, rules: .defaults).map(\.at), [t0 + 25])
        XCTAssertEqual(activity.contentState, Fixture.content(12))
        XCTAssertEqual(activity.updateBudget.remaining(at: t0 + 25), 0)

        // Low priority replaced by an over-budget priority 10: waits for the token.
        var other = Fixture.activity()
        _ = push(&other, count: 10, at: t0)
        _ = push(&other, count: 1, first: 11, priority: 5, at: t0)
        let outcome = push(&other, count: 1, first: 12, at: t0 + 1)[0]
        guard case .coalesced(let until, .budget) = outcome else { return XCTFail("\(outcome)") }
        XCTAssertEqual(until, t0 + 360, accuracy: 1e-6)
        XCTAssertEqual(other.advance(to: t0 + 100, rules: .defaults), [])
    }

    func testZeroLowPriorityDelayAppliesAtTheNextAdvance() {
        var rules = RelayRules()
        rules.lowPriorityDelay = 0
        var activity = Fixture.activity(rules: rules)
        XCTAssertEqual(
            push(&activity, count: 1, priority: 5, rules: rules, at: t0 + 1),
            [.deferred(until: t0 + 1, reason: .lowPriority)])
        XCTAssertEqual(activity.advance(to: t0 + 1, rules: rules).count, 1)
    }
}
