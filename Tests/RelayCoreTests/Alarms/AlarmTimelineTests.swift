import RelayCore
import XCTest

/// `advance(to:)` applies every due transition in order with its own time, however far time jumps.
final class AlarmTimelineTests: XCTestCase {
    func testJumpOfDaysYieldsEveryTransitionInOrder() throws {
        let t = AlarmFixtures.t0
        var alarm = try AlarmFixtures.make(schedule: .fixed(t + 3600), preAlert: 600, postAlert: 120, at: t)
        XCTAssertEqual(
            alarm.advance(to: t + 5 * 86_400),
            [
                .stateChanged(from: .scheduled, to: .countdown, at: t + 3000),
                .stateChanged(from: .countdown, to: .alerting, at: t + 3600),
            ])
        XCTAssertEqual(alarm.state, .alerting, "alerting lasts until an operation")
        XCTAssertEqual(alarm.advance(to: t + 50 * 86_400), [])
    }

    func testRepeatingAlarmJumpStopsAtTheFirstAlertThenStopMovesPastNow() throws {
        var (alarm, _) = try AlarmFixtures.daily(in: .scheduled)
        let t = AlarmFixtures.t0
        XCTAssertEqual(
            alarm.advance(to: t + 3 * 86_400),
            [
                .stateChanged(from: .scheduled, to: .countdown, at: t + 7 * 3600 - 600),
                .stateChanged(from: .countdown, to: .alerting, at: t + 7 * 3600),
            ])
        // Stopped on day 4 at 06:55, inside that day's pre-alert: straight into its countdown.
        let now = t + 3 * 86_400 + 7 * 3600 - 300
        XCTAssertEqual(try alarm.stop(at: now), [.stateChanged(from: .alerting, to: .countdown, at: now)])
        XCTAssertEqual(
            alarm.presentationState,
            .countdown(
                totalCountdownDuration: 600, previouslyElapsedDuration: 300, startDate: now,
                fireDate: t + 3 * 86_400 + 7 * 3600))
    }

    func testOperationAppliesDueTransitionsFirst() throws {
        let t = AlarmFixtures.t0
        var alarm = try AlarmFixtures.make(schedule: .fixed(t + 3600), preAlert: 600, postAlert: 120, at: t)
        XCTAssertEqual(
            try alarm.countdown(at: t + 3700),
            [
                .stateChanged(from: .scheduled, to: .countdown, at: t + 3000),
                .stateChanged(from: .countdown, to: .alerting, at: t + 3600),
                .stateChanged(from: .alerting, to: .countdown, at: t + 3700),
            ])
        XCTAssertEqual(alarm.nextAlertAt, t + 3820)
    }

    func testSnoozeCycleAcrossAJump() throws {
        var alarm = try AlarmFixtures.make(schedule: nil, preAlert: 10, postAlert: 5, at: 0)
        _ = alarm.advance(to: 10)
        _ = try alarm.countdown(at: 12)
        _ = try alarm.pause(at: 14)
        XCTAssertEqual(alarm.advance(to: 10_000), [])
        _ = try alarm.resume(at: 10_000)
        XCTAssertEqual(alarm.advance(to: 20_000), [.stateChanged(from: .countdown, to: .alerting, at: 10_003)])
    }

    func testNextDeadlineIsNilWhenOnlyAnOperationCanMoveTheAlarm() throws {
        for state in [AlarmState.paused, .alerting] {
            let (alarm, _) = try AlarmFixtures.oneShot(in: state)
            XCTAssertNil(alarm.nextDeadline, "\(state)")
        }
    }
}
