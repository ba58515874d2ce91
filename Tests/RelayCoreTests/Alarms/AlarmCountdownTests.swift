import RelayCore
import XCTest

/// Timers (countdown only) and fixed alarms with a pre-alert: exact presentation state through
/// pause, resume and snooze.
final class AlarmCountdownTests: XCTestCase {
    func testTimerStartsCountingDownAtOnce() throws {
        let alarm = try AlarmFixtures.make(schedule: nil, preAlert: 300, at: 1000)
        XCTAssertEqual(alarm.state, .countdown)
        XCTAssertEqual(
            alarm.presentationState,
            .countdown(totalCountdownDuration: 300, previouslyElapsedDuration: 0, startDate: 1000, fireDate: 1300))
        XCTAssertEqual(alarm.nextAlertAt, 1300)
        XCTAssertEqual(alarm.nextDeadline, 1300)
        XCTAssertNil(alarm.occurrenceAt)
    }

    func testTimerPauseResumeKeepsElapsedAccountingExact() throws {
        var alarm = try AlarmFixtures.make(schedule: nil, preAlert: 300, postAlert: 60, at: 1000)

        XCTAssertEqual(try alarm.pause(at: 1100), [.stateChanged(from: .countdown, to: .paused, at: 1100)])
        XCTAssertEqual(alarm.presentationState, .paused(totalCountdownDuration: 300, previouslyElapsedDuration: 100))
        XCTAssertNil(alarm.nextAlertAt)
        XCTAssertNil(alarm.nextDeadline)
        XCTAssertEqual(alarm.advance(to: 1_000_000), [], "a paused countdown never fires")

        XCTAssertEqual(try alarm.resume(at: 5000), [.stateChanged(from: .paused, to: .countdown, at: 5000)])
        XCTAssertEqual(
            alarm.presentationState,
            .countdown(totalCountdownDuration: 300, previouslyElapsedDuration: 100, startDate: 5000, fireDate: 5200))

        _ = try alarm.pause(at: 5050)
        XCTAssertEqual(alarm.presentationState, .paused(totalCountdownDuration: 300, previouslyElapsedDuration: 150))
        _ = try alarm.resume(at: 6000)
        XCTAssertEqual(
            alarm.presentationState,
            .countdown(totalCountdownDuration: 300, previouslyElapsedDuration: 150, startDate: 6000, fireDate: 6150))
        XCTAssertEqual(alarm.nextAlertAt, 6150)

        XCTAssertEqual(alarm.advance(to: 6149), [])
        XCTAssertEqual(alarm.advance(to: 6150), [.stateChanged(from: .countdown, to: .alerting, at: 6150)])
        // 6150 s after the epoch is 01:42:30 UTC.
        XCTAssertEqual(alarm.presentationState, .alert(hour: 1, minute: 42))
        XCTAssertTrue(alarm.hasAlerted)
        XCTAssertNil(alarm.nextAlertAt)
    }

    func testSnoozeUsesPostAlertAndRepeats() throws {
        var alarm = try AlarmFixtures.make(schedule: nil, preAlert: 300, postAlert: 60, at: 1000)
        _ = alarm.advance(to: 1300)
        XCTAssertEqual(try alarm.countdown(at: 1310), [.stateChanged(from: .alerting, to: .countdown, at: 1310)])
        XCTAssertEqual(
            alarm.presentationState,
            .countdown(totalCountdownDuration: 60, previouslyElapsedDuration: 0, startDate: 1310, fireDate: 1370))
        XCTAssertEqual(alarm.advance(to: 2000), [.stateChanged(from: .countdown, to: .alerting, at: 1370)])
        _ = try alarm.countdown(at: 2000)
        XCTAssertEqual(alarm.nextAlertAt, 2060)
        XCTAssertEqual(try alarm.stop(at: 2010), [.removed(at: 2010)])
        XCTAssertEqual(alarm.removedAt, 2010)
    }

    func testSnoozeFallsBackToPreAlert() throws {
        var alarm = try AlarmFixtures.make(schedule: nil, preAlert: 90, at: 0)
        _ = alarm.advance(to: 90)
        _ = try alarm.countdown(at: 100)
        XCTAssertEqual(alarm.nextAlertAt, 190)
    }

    func testSnoozeWithoutAnyDurationIsRefused() throws {
        var alarm = try AlarmFixtures.make(schedule: .fixed(500), at: 0)
        XCTAssertEqual(alarm.advance(to: 500), [.stateChanged(from: .scheduled, to: .alerting, at: 500)])
        assertAlarmError(try alarm.countdown(at: 510), .noCountdownDuration(id: AlarmFixtures.id))
        XCTAssertEqual(alarm.state, .alerting)
    }

    func testFixedAlarmWithPostAlertOnlyAlertsWithoutPreCountdown() throws {
        var alarm = try AlarmFixtures.make(schedule: .fixed(500), postAlert: 30, at: 0)
        XCTAssertEqual(alarm.nextDeadline, 500)
        _ = alarm.advance(to: 500)
        _ = try alarm.countdown(at: 505)
        XCTAssertEqual(alarm.nextAlertAt, 535)
    }

    func testFixedAlarmEntersCountdownPreAlertBeforeTheAlert() throws {
        let t = AlarmFixtures.t0
        var alarm = try AlarmFixtures.make(schedule: .fixed(t + 3600), preAlert: 600, at: t)
        XCTAssertEqual(alarm.state, .scheduled)
        XCTAssertEqual(alarm.nextAlertAt, t + 3600)
        XCTAssertEqual(alarm.nextDeadline, t + 3000)
        XCTAssertEqual(alarm.presentationState, .alert(hour: 1, minute: 0))
        XCTAssertEqual(alarm.advance(to: t + 2999), [])
        XCTAssertEqual(alarm.advance(to: t + 3000), [.stateChanged(from: .scheduled, to: .countdown, at: t + 3000)])
        XCTAssertEqual(
            alarm.presentationState,
            .countdown(
                totalCountdownDuration: 600, previouslyElapsedDuration: 0, startDate: t + 3000, fireDate: t + 3600))
        XCTAssertEqual(alarm.advance(to: t + 3600), [.stateChanged(from: .countdown, to: .alerting, at: t + 3600)])
        XCTAssertEqual(alarm.presentationState, .alert(hour: 1, minute: 0))
    }

    func testFixedAlarmInsideItsPreAlertCountsDownTheRemainderAtOnce() throws {
        let t = AlarmFixtures.t0
        let alarm = try AlarmFixtures.make(schedule: .fixed(t + 3600), preAlert: 600, at: t + 3300)
        XCTAssertEqual(alarm.state, .countdown)
        XCTAssertEqual(
            alarm.presentationState,
            .countdown(
                totalCountdownDuration: 600, previouslyElapsedDuration: 300, startDate: t + 3300, fireDate: t + 3600))
        XCTAssertEqual(alarm.nextDeadline, t + 3600)
    }

    func testFixedAlarmAtNowAlertsOnTheNextAdvance() throws {
        var alarm = try AlarmFixtures.make(schedule: .fixed(1000), at: 1000)
        XCTAssertEqual(alarm.state, .scheduled)
        XCTAssertEqual(alarm.advance(to: 1000), [.stateChanged(from: .scheduled, to: .alerting, at: 1000)])
    }

    func testFixedAlertTimeFollowsTheAlarmTimeZone() throws {
        // 2024-03-09T12:00Z is 07:00 EST in New York and 13:00 CET in Berlin.
        let instant: UnixSeconds = 1_709_985_600
        let newYork = try AlarmFixtures.make(schedule: .fixed(instant), timeZone: "America/New_York", at: 0)
        let berlin = try AlarmFixtures.make(schedule: .fixed(instant), timeZone: "Europe/Berlin", at: 0)
        XCTAssertEqual(newYork.presentationState, .alert(hour: 7, minute: 0))
        XCTAssertEqual(berlin.presentationState, .alert(hour: 13, minute: 0))
        XCTAssertEqual(newYork.nextAlertAt, berlin.nextAlertAt, "a fixed date is not tied to a time zone")
    }

    func testPauseAtTheFireDateIsTooLate() throws {
        var alarm = try AlarmFixtures.make(schedule: nil, preAlert: 60, at: 0)
        assertAlarmError(try alarm.pause(at: 60), .invalidState(current: .alerting, operation: "pause"))
        XCTAssertEqual(alarm.state, .countdown, "a refused operation leaves the alarm untouched")
        XCTAssertEqual(alarm.advance(to: 60), [.stateChanged(from: .countdown, to: .alerting, at: 60)])
    }
}
