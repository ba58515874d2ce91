import RelayCore
import RelayJSON
import XCTest

final class LiveActivityUpdateTests: XCTestCase {
    private let t0 = Fixture.t0
    private let hour = Fixture.hour
    private let sources: [ActivityUpdateSource] = [.app, .push(priority: 10)]

    func testTimestampOlderThanLastIsIgnoredAndEqualIsApplied() {
        let table: [(timestamp: UnixSeconds?, outcome: ActivityUpdateOutcome, last: UnixSeconds)] = [
            (t0 + 99, .ignoredStale(last: t0 + 100), t0 + 100),
            (t0 + 100, .applied, t0 + 100),
            (t0 + 101, .applied, t0 + 101),
            (nil, .applied, t0 + 200),  // no timestamp: the arrival time
        ]
        for source in sources {
            for row in table {
                var activity = Fixture.activity()
                _ = activity.update(
                    Fixture.update(1, timestamp: t0 + 100), source: source, frequentPushesEnabled: false,
                    rules: .defaults,
                    at: t0 + 150)
                let outcome = activity.update(
                    Fixture.update(2, timestamp: row.timestamp), source: source, frequentPushesEnabled: false,
                    rules: .defaults, at: t0 + 200)
                XCTAssertEqual(outcome, row.outcome, "\(source) \(String(describing: row.timestamp))")
                XCTAssertEqual(activity.lastTimestamp, row.last)
                XCTAssertEqual(activity.contentState, Fixture.content(outcome == .applied ? 2 : 1))
            }
        }
    }

    func testUpdatesAfterTheEndAreRejectedWithTheEndTime() {
        let sources: [ActivityUpdateSource] = [.app, .push(priority: 10), .push(priority: 5)]
        for source in sources {
            var endedByApp = Fixture.activity()
            _ = endedByApp.end(content: nil, dismissalPolicy: .default, timestamp: nil, rules: .defaults, at: t0 + 60)
            var endedBySystem = Fixture.activity()
            _ = endedBySystem.advance(to: t0 + 9 * hour, rules: .defaults)
            let notAdvanced = Fixture.activity()  // the update itself finds the 8 h end
            var dismissed = Fixture.activity()
            _ = dismissed.end(content: nil, dismissalPolicy: .immediate, timestamp: nil, rules: .defaults, at: t0 + 30)
            let table: [(activity: LiveActivity, at: UnixSeconds, endedAt: UnixSeconds)] = [
                (endedByApp, t0 + 61, t0 + 60), (endedBySystem, t0 + 9 * hour, t0 + 8 * hour),
                (notAdvanced, t0 + 8 * hour, t0 + 8 * hour), (dismissed, t0 + 31, t0 + 30),
            ]
            for var row in table {
                let outcome = row.activity.update(
                    Fixture.update(9), source: source, frequentPushesEnabled: false, rules: .defaults, at: row.at)
                XCTAssertEqual(outcome, .rejectedEnded(endedAt: row.endedAt), "\(source)")
                XCTAssertEqual(row.activity.counters.rejected, 1)
            }
        }
    }

    func testUpdateJustBeforeEightHoursIsStillTaken() {
        let table: [(source: ActivityUpdateSource, applied: Bool)] = [
            (.app, true), (.push(priority: 10), true), (.push(priority: 5), false),
        ]
        for row in table {
            var activity = Fixture.activity()
            let outcome = activity.update(
                Fixture.update(1), source: row.source, frequentPushesEnabled: false, rules: .defaults,
                at: t0 + 8 * hour - 0.001)
            XCTAssertEqual(outcome == .applied, row.applied, "\(row.source)")
            if !row.applied {
                // Held past the end: dropped when the system ends the activity.
                XCTAssertEqual(outcome.heldUntil ?? 0, t0 + 8 * hour + 14.999, accuracy: 1e-6)
                let held = Fixture.update(1, timestamp: t0 + 8 * hour - 0.001)
                XCTAssertEqual(
                    activity.advance(to: t0 + 9 * hour, rules: .defaults),
                    [.endedBySystem(at: t0 + 8 * hour), .deferredUpdateDiscarded(at: t0 + 8 * hour, update: held)])
            }
        }
    }

    func testSizeLimitAppliesToAttributesPlusContent() {
        // Attributes {"order":"42"} are 14 bytes; {"c":"..."} is 8 + padding.
        let table: [(padding: Int, outcome: ActivityUpdateOutcome)] = [
            (4096 - 14 - 8, .applied), (4096 - 14 - 8 + 1, .rejectedTooLarge(bytes: 4097, limit: 4096)),
        ]
        for source in sources {
            for row in table {
                var activity = Fixture.activity()
                let content: JSONValue = ["c": .string(String(repeating: "z", count: row.padding))]
                let outcome = activity.update(
                    ActivityUpdate(contentState: content), source: source, frequentPushesEnabled: false,
                    rules: .defaults,
                    at: t0 + 1)
                XCTAssertEqual(outcome, row.outcome)
                XCTAssertEqual(activity.contentState, outcome == .applied ? content : Fixture.content(0))
            }
        }
    }

    func testNonFiniteNumbersAreRejected() {
        let table: [(update: ActivityUpdate, field: String)] = [
            (ActivityUpdate(contentState: [:], staleDate: .nan), "staleDate"),
            (ActivityUpdate(contentState: [:], relevanceScore: .infinity), "relevanceScore"),
            (ActivityUpdate(contentState: [:], timestamp: -.infinity), "timestamp"),
        ]
        for row in table {
            var activity = Fixture.activity()
            let outcome = activity.update(
                row.update, source: .app, frequentPushesEnabled: false, rules: .defaults, at: t0)
            XCTAssertEqual(outcome, .rejectedInvalid(field: row.field))
        }
    }

    func testStaleDateOfAnUpdateDecidesActiveOrStale() {
        let now = t0 + 2 * hour
        let table: [(staleDate: UnixSeconds?, state: ActivityState)] = [
            (now + 60, .active), (nil, .active), (now, .stale), (now - 60, .stale),
        ]
        for source in sources {
            for row in table {
                var activity = Fixture.activity(staleDate: t0 + hour)
                XCTAssertEqual(activity.advance(to: now, rules: .defaults), [.becameStale(at: t0 + hour)])
                let outcome = activity.update(
                    Fixture.update(1, staleDate: row.staleDate), source: source, frequentPushesEnabled: false,
                    rules: .defaults, at: now)
                XCTAssertEqual(outcome, .applied)
                XCTAssertEqual(activity.state, row.state, "\(String(describing: row.staleDate))")
                XCTAssertEqual(activity.staleDate, row.staleDate)
            }
        }
    }

    func testReactivatedActivityGoesStaleAgainAtItsNewDate() {
        var activity = Fixture.activity(staleDate: t0 + 60)
        _ = activity.update(
            Fixture.update(1, staleDate: t0 + 300), source: .app, frequentPushesEnabled: false, rules: .defaults,
            at: t0 + 120)
        XCTAssertEqual(activity.state, .active)
        XCTAssertEqual(activity.nextDeadline, t0 + 300)
        XCTAssertEqual(activity.advance(to: t0 + 400, rules: .defaults), [.becameStale(at: t0 + 300)])
    }

    func testRelevanceScoreIsKeptWhenAnUpdateLeavesItOut() {
        var activity = Fixture.activity(relevance: 40)
        _ = activity.update(
            ActivityUpdate(contentState: [:], relevanceScore: 70), source: .app, frequentPushesEnabled: false,
            rules: .defaults, at: t0 + 1)
        XCTAssertEqual(activity.relevanceScore, 70)
        _ = activity.update(
            ActivityUpdate(contentState: [:]), source: .app, frequentPushesEnabled: false, rules: .defaults, at: t0 + 2)
        XCTAssertEqual(activity.relevanceScore, 70)
    }

    func testAppUpdatesNeverDrawOnTheBudget() {
        var activity = Fixture.activity()
        for index in 1...30 {
            let outcome = activity.update(
                Fixture.update(index), source: .app, frequentPushesEnabled: false, rules: .defaults, at: t0)
            XCTAssertEqual(outcome, .applied)
        }
        XCTAssertEqual(activity.updateBudget.remaining(at: t0), 10)
        XCTAssertEqual(activity.counters.applied, 30)
    }
}
