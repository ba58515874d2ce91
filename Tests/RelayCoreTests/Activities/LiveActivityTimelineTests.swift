import RelayCore
import XCTest

final class LiveActivityTimelineTests: XCTestCase {
    private let t0 = Fixture.t0
    private let hour = Fixture.hour

    func testSystemEndsTheActivityAtExactlyEightHoursAndDismissesItAtTwelve() {
        var activity = Fixture.activity()
        XCTAssertEqual(activity.nextDeadline, t0 + 8 * hour)
        XCTAssertEqual(activity.advance(to: t0 + 8 * hour - 0.001, rules: .defaults), [])
        XCTAssertEqual(activity.state, .active)
        XCTAssertEqual(activity.advance(to: t0 + 8 * hour, rules: .defaults), [.endedBySystem(at: t0 + 8 * hour)])
        XCTAssertEqual(activity.state, .ended)
        XCTAssertEqual(activity.endedAt, t0 + 8 * hour)
        XCTAssertEqual(activity.dismissAt, t0 + 12 * hour)
        XCTAssertEqual(activity.nextDeadline, t0 + 12 * hour)
        XCTAssertEqual(activity.advance(to: t0 + 12 * hour - 0.001, rules: .defaults), [])
        XCTAssertEqual(activity.advance(to: t0 + 12 * hour, rules: .defaults), [.dismissed(at: t0 + 12 * hour)])
        XCTAssertEqual(activity.state, .dismissed)
        XCTAssertNil(activity.nextDeadline)
        XCTAssertEqual(activity.advance(to: t0 + 100 * hour, rules: .defaults), [])
    }

    func testALongJumpYieldsEveryTransitionInOrderWithItsOwnTime() {
        let table: [(staleDate: UnixSeconds?, jump: Double, transitions: [ActivityTransition])] = [
            (
                t0 + hour, 20,
                [.becameStale(at: t0 + hour), .endedBySystem(at: t0 + 8 * hour), .dismissed(at: t0 + 12 * hour)]
            ),
            (nil, 20, [.endedBySystem(at: t0 + 8 * hour), .dismissed(at: t0 + 12 * hour)]),
            (t0 + hour, 9, [.becameStale(at: t0 + hour), .endedBySystem(at: t0 + 8 * hour)]),
            // A stale date exactly at the system end: the end comes first.
            (t0 + 8 * hour, 20, [.endedBySystem(at: t0 + 8 * hour), .dismissed(at: t0 + 12 * hour)]),
            (t0 + 30 * hour, 20, [.endedBySystem(at: t0 + 8 * hour), .dismissed(at: t0 + 12 * hour)]),
            (t0 + hour, 0.5, []),
        ]
        for row in table {
            var activity = Fixture.activity(staleDate: row.staleDate)
            XCTAssertEqual(activity.advance(to: t0 + row.jump * hour, rules: .defaults), row.transitions, "\(row)")
        }
    }

    func testHeldUpdateDueAfterTheSystemEndIsDiscarded() {
        var activity = Fixture.activity()
        let now = t0 + 8 * hour - 100
        for number in 1...11 {
            _ = activity.update(
                Fixture.update(number, timestamp: now), source: .push(priority: 10), frequentPushesEnabled: false,
                rules: .defaults, at: now)
        }
        XCTAssertGreaterThan(activity.pendingUpdate?.releaseAt ?? 0, t0 + 8 * hour)
        XCTAssertEqual(
            activity.advance(to: t0 + 20 * hour, rules: .defaults),
            [
                .endedBySystem(at: t0 + 8 * hour),
                .deferredUpdateDiscarded(at: t0 + 8 * hour, update: Fixture.update(11, timestamp: now)),
                .dismissed(at: t0 + 12 * hour),
            ])
        XCTAssertEqual(activity.contentState, Fixture.content(10))
        XCTAssertEqual(activity.counters.discarded, 1)
    }

    func testHeldUpdateDueExactlyAtTheSystemEndIsDiscarded() {
        var activity = Fixture.activity()
        let update = Fixture.update(1, timestamp: t0 + 8 * hour - 15)
        let outcome = activity.update(
            update, source: .push(priority: 5), frequentPushesEnabled: false, rules: .defaults, at: t0 + 8 * hour - 15)
        XCTAssertEqual(outcome, .deferred(until: t0 + 8 * hour, reason: .lowPriority))
        XCTAssertEqual(
            activity.advance(to: t0 + 8 * hour, rules: .defaults),
            [.endedBySystem(at: t0 + 8 * hour), .deferredUpdateDiscarded(at: t0 + 8 * hour, update: update)])
        XCTAssertEqual(activity.contentState, Fixture.content(0))
    }

    func testHeldUpdateReleasedBeforeTheEndIsAppliedInOrder() {
        var activity = Fixture.activity(staleDate: t0 + 50)
        _ = activity.update(
            Fixture.update(1, timestamp: t0 + 10, staleDate: t0 + 2 * hour), source: .push(priority: 5),
            frequentPushesEnabled: false, rules: .defaults, at: t0 + 10)
        XCTAssertEqual(
            activity.advance(to: t0 + 20 * hour, rules: .defaults),
            [
                .deferredUpdateApplied(
                    at: t0 + 25, update: Fixture.update(1, timestamp: t0 + 10, staleDate: t0 + 2 * hour)),
                .becameStale(at: t0 + 2 * hour), .endedBySystem(at: t0 + 8 * hour), .dismissed(at: t0 + 12 * hour),
            ])
    }

    func testReleaseAndStaleDateAtTheSameTimeApplyTheUpdateFirst() {
        var activity = Fixture.activity(staleDate: t0 + 25)
        let update = Fixture.update(1, timestamp: t0 + 10)  // no stale date: active for good
        _ = activity.update(
            update, source: .push(priority: 5), frequentPushesEnabled: false, rules: .defaults, at: t0 + 10)
        XCTAssertEqual(
            activity.advance(to: t0 + hour, rules: .defaults), [.deferredUpdateApplied(at: t0 + 25, update: update)])
        XCTAssertEqual(activity.state, .active)
    }

    func testReleasedUpdateWithAPastStaleDateIsStaleAtOnce() {
        var activity = Fixture.activity()
        let update = Fixture.update(1, timestamp: t0 + 10, staleDate: t0 + 12)
        _ = activity.update(
            update, source: .push(priority: 5), frequentPushesEnabled: false, rules: .defaults, at: t0 + 10)
        XCTAssertEqual(
            activity.advance(to: t0 + 30, rules: .defaults), [.deferredUpdateApplied(at: t0 + 25, update: update)])
        XCTAssertEqual(activity.state, .stale)
    }

    func testNextDeadlineIsTheEarliestPendingChange() {
        var stale = Fixture.activity(staleDate: t0 + 60)
        _ = stale.advance(to: t0 + 60, rules: .defaults)
        var held = Fixture.activity(staleDate: t0 + 60)
        _ = held.update(
            Fixture.update(1, staleDate: t0 + 60), source: .push(priority: 5), frequentPushesEnabled: false,
            rules: .defaults, at: t0)
        var ended = Fixture.activity()
        _ = ended.end(content: nil, dismissalPolicy: .after(t0 + hour), timestamp: nil, rules: .defaults, at: t0 + 5)
        var dismissed = Fixture.activity()
        _ = dismissed.end(content: nil, dismissalPolicy: .immediate, timestamp: nil, rules: .defaults, at: t0 + 5)
        let table: [(activity: LiveActivity, deadline: UnixSeconds?)] = [
            (Fixture.activity(), t0 + 8 * hour), (Fixture.activity(staleDate: t0 + 60), t0 + 60),
            (stale, t0 + 8 * hour),
            (held, t0 + 15), (ended, t0 + hour), (dismissed, nil),
        ]
        for row in table { XCTAssertEqual(row.activity.nextDeadline, row.deadline, "\(row.activity.state)") }
    }

    func testAdvancingToThePastChangesNothing() {
        var activity = Fixture.activity(staleDate: t0 + 60)
        let before = activity
        XCTAssertEqual(activity.advance(to: t0 - hour, rules: .defaults), [])
        XCTAssertEqual(activity, before)
    }

    func testZeroDismissalWindowEndsAndDismissesAtTheSameTimeInOrder() {
        var rules = RelayRules()
        rules.dismissalWindow = 0
        var activity = Fixture.activity(rules: rules)
        XCTAssertEqual(
            activity.advance(to: t0 + 9 * hour, rules: rules),
            [.endedBySystem(at: t0 + 8 * hour), .dismissed(at: t0 + 8 * hour)])
    }

    func testActiveLifetimeIsFixedAtStart() {
        var shorter = RelayRules()
        shorter.activeLifetime = hour
        var activity = Fixture.activity()
        XCTAssertEqual(activity.advance(to: t0 + 2 * hour, rules: shorter), [])
        XCTAssertEqual(Fixture.activity(rules: shorter).systemEndAt, t0 + hour)
    }
}
