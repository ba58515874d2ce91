import RelayCore
import RelayJSON
import XCTest

/// Push timestamps are whole seconds and the relay's times are not: a push stamped with the
/// current second right after a start or a local update is applied, for every path a push takes.
final class WholeSecondTimestampTests: XCTestCase {
    /// A start at a fraction past the second the push is stamped with.
    private let start = Fixture.t0 + 0.640_786

    func testAPushStampedWithTheStartSecondIsApplied() {
        let sources: [ActivityUpdateSource] = [.push(priority: 10), .push(priority: 5), .app]
        for source in sources {
            var activity = Fixture.activity(at: start)
            let outcome = activity.update(
                Fixture.update(1, timestamp: Fixture.t0), source: source, frequentPushesEnabled: false,
                rules: .defaults, at: start + 0.1)
            XCTAssertNotEqual(outcome, .ignoredStale(last: start), "\(source)")
            _ = activity.advance(to: start + 60, rules: .defaults)
            XCTAssertEqual(activity.contentState, Fixture.content(1), "\(source): the held update is released too")
        }
    }

    func testAPushStampedWithTheSecondOfALocalUpdateIsApplied() {
        var activity = Fixture.activity(at: start)
        _ = activity.update(
            Fixture.update(1), source: .app, frequentPushesEnabled: false, rules: .defaults, at: start + 5)
        let outcome = activity.update(
            Fixture.update(2, timestamp: Fixture.t0 + 5), source: .push(priority: 10), frequentPushesEnabled: false,
            rules: .defaults, at: start + 5.2)
        XCTAssertEqual(outcome, .applied)
        XCTAssertEqual(
            activity.update(
                Fixture.update(3, timestamp: Fixture.t0 + 4), source: .push(priority: 10),
                frequentPushesEnabled: false, rules: .defaults, at: start + 5.3),
            .ignoredStale(last: Fixture.t0 + 5), "an earlier second is still ignored")
    }

    func testAnEndStampedWithTheStartSecondEnds() {
        var activity = Fixture.activity(at: start)
        let outcome = activity.end(
            content: nil, dismissalPolicy: .default, timestamp: Fixture.t0, rules: .defaults, at: start + 0.2)
        XCTAssertEqual(outcome, .ended(dismissAt: start + 0.2 + 4 * Fixture.hour))
        XCTAssertEqual(activity.state, .ended)
    }

    func testAnEarlierSecondIsStillIgnoredAndASecondHeldUpdateOfTheSameSecondReplacesTheFirst() {
        var activity = Fixture.activity(at: start)
        XCTAssertEqual(
            activity.end(
                content: nil, dismissalPolicy: .default, timestamp: Fixture.t0 - 1, rules: .defaults, at: start + 0.2),
            .ignoredStale(last: start))
        _ = activity.update(
            Fixture.update(1, timestamp: Fixture.t0 + 10), source: .push(priority: 5), frequentPushesEnabled: false,
            rules: .defaults, at: start + 10)
        let second = activity.update(
            Fixture.update(2, timestamp: Fixture.t0 + 10), source: .push(priority: 5), frequentPushesEnabled: false,
            rules: .defaults, at: start + 10.5)
        XCTAssertNotNil(second.heldUntil)
        _ = activity.advance(to: start + 60, rules: .defaults)
        XCTAssertEqual(activity.contentState, Fixture.content(2))
    }
}

extension WholeSecondTimestampTests {
    func testAFixedAlarmInTheCurrentSecondIsScheduledAndAnEarlierSecondIsPast() throws {
        let body: (UnixSeconds) -> JSONValue = { fixed in
            [
                "deviceId": "device-1", "bundleId": "com.example.wake", "schedule": ["fixed": .number(fixed)],
                "presentation": AlarmFixtures.presentation,
            ]
        }
        let now = AlarmFixtures.t0 + 0.75
        let alarm = try Alarm.fromRequest(body(AlarmFixtures.t0), defaultId: AlarmFixtures.id, at: now)
        XCTAssertEqual(alarm.schedule, .fixed(AlarmFixtures.t0))
        XCTAssertThrowsError(try Alarm.fromRequest(body(AlarmFixtures.t0 - 1), defaultId: AlarmFixtures.id, at: now))
    }
}
