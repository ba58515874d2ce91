import Foundation
import RelayCore
import XCTest

/// Relative schedules in IANA time zones, across the 2024 daylight-saving changes. Every expected
/// instant is written out in UTC.
final class AlarmRelativeScheduleTests: XCTestCase {
    /// Creates the alarm at `now`, then repeatedly advances to its alert, checks it, and stops it.
    private func walk(
        _ schedule: AlarmSchedule, in zone: String, from now: UnixSeconds, expecting alerts: [UnixSeconds],
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        var alarm = try AlarmFixtures.make(schedule: schedule, timeZone: zone, at: now)
        for expected in alerts {
            XCTAssertEqual(alarm.nextAlertAt, expected, file: file, line: line)
            XCTAssertEqual(alarm.advance(to: expected - 1), [], file: file, line: line)
            XCTAssertEqual(
                alarm.advance(to: expected), [.stateChanged(from: .scheduled, to: .alerting, at: expected)],
                file: file, line: line)
            _ = try alarm.stop(at: expected + 60)
        }
    }

    func testNewYorkWeeklyAcrossSpringForward() throws {
        try walk(
            .relative(hour: 2, minute: 30, repeats: .weekly([.saturday, .sunday])), in: "America/New_York",
            from: 1_709_985_600,  // Sat 2024-03-09 12:00Z
            expecting: [
                1_710_054_000,  // Sun 03-10: 02:30 does not exist, fires at 03:00 EDT = 07:00Z
                1_710_570_600,  // Sat 03-16 02:30 EDT = 06:30Z
                1_710_657_000,  // Sun 03-17 02:30 EDT = 06:30Z
            ])
    }

    func testNewYorkWeeklyAcrossFallBackFiresOnceAtTheFirstOccurrence() throws {
        try walk(
            .relative(hour: 1, minute: 30, repeats: .weekly([.sunday])), in: "America/New_York",
            from: 1_730_548_800,  // Sat 2024-11-02 12:00Z
            expecting: [
                1_730_611_800,  // Sun 11-03 01:30 EDT = 05:30Z (not again at 01:30 EST = 06:30Z)
                1_731_220_200,  // Sun 11-10 01:30 EST = 06:30Z
            ])
    }

    func testBerlinWeeklyAcrossSpringForward() throws {
        try walk(
            .relative(hour: 2, minute: 30, repeats: .weekly([.sunday])), in: "Europe/Berlin",
            from: 1_710_936_000,  // Wed 2024-03-20 12:00Z
            expecting: [
                1_711_243_800,  // Sun 03-24 02:30 CET = 01:30Z
                1_711_846_800,  // Sun 03-31: 02:30 does not exist, fires at 03:00 CEST = 01:00Z
                1_712_449_800,  // Sun 04-07 02:30 CEST = 00:30Z
            ])
    }

    func testBerlinWeeklyAcrossFallBack() throws {
        try walk(
            .relative(hour: 2, minute: 30, repeats: .weekly([.sunday])), in: "Europe/Berlin",
            from: 1_729_425_600,  // Sun 2024-10-20 12:00Z
            expecting: [
                1_729_989_000,  // Sun 10-27 02:30 CEST = 00:30Z (not again at 02:30 CET = 01:30Z)
                1_730_597_400,  // Sun 11-03 02:30 CET = 01:30Z
            ])
    }

    func testPreAlertCountdownStartsTenMinutesBeforeTheShiftedAlert() throws {
        // Berlin 03:00 on 2024-03-31 is the first instant after the gap: 01:00Z; alarm at 02:30.
        var alarm = try AlarmFixtures.make(
            schedule: .relative(hour: 2, minute: 30, repeats: .never), timeZone: "Europe/Berlin", preAlert: 600,
            at: 1_711_800_000)
        XCTAssertEqual(alarm.nextDeadline, 1_711_846_800 - 600)
        XCTAssertEqual(
            alarm.advance(to: 1_711_846_800),
            [
                .stateChanged(from: .scheduled, to: .countdown, at: 1_711_846_200),
                .stateChanged(from: .countdown, to: .alerting, at: 1_711_846_800),
            ])
        XCTAssertEqual(alarm.presentationState, .alert(hour: 2, minute: 30), "the alarm's own time, not 03:00")
        XCTAssertEqual(try alarm.stop(at: 1_711_846_900), [.removed(at: 1_711_846_900)], "never repeats")
    }

    func testCreatedBetweenTheTwoOccurrencesWaitsForTheNextDay() throws {
        // 2024-11-03 06:00Z is 01:00 EST, after the first 01:30 (05:30Z) and before the second (06:30Z).
        // The day's occurrence was the first one, so the next is tomorrow (Calendar would say 06:30Z).
        let alarm = try AlarmFixtures.make(
            schedule: .relative(hour: 1, minute: 30, repeats: .never), timeZone: "America/New_York",
            at: 1_730_613_600)
        XCTAssertEqual(alarm.nextAlertAt, 1_730_615_400 + 86_400)  // 2024-11-04 01:30 EST
    }

    func testWeekdaysFollowTheLocalDate() throws {
        // 2024-01-01 is a Monday. At 23:30Z on Sunday 2023-12-31 it is already Monday 00:30 in Berlin
        // but still Sunday 18:30 in New York.
        let now: UnixSeconds = 1_704_065_400
        let monday = AlarmSchedule.relative(hour: 8, minute: 0, repeats: .weekly([.monday]))
        let berlin = try AlarmFixtures.make(schedule: monday, timeZone: "Europe/Berlin", at: now)
        let newYork = try AlarmFixtures.make(schedule: monday, timeZone: "America/New_York", at: now)
        XCTAssertEqual(berlin.nextAlertAt, 1_704_092_400)  // Mon 01-01 08:00 CET = 07:00Z
        XCTAssertEqual(newYork.nextAlertAt, 1_704_114_000)  // Mon 01-01 08:00 EST = 13:00Z
        XCTAssertEqual(berlin.presentationState, .alert(hour: 8, minute: 0))
    }

    func testTodaysTimeAlreadyPassedMeansTomorrow() throws {
        let t = AlarmFixtures.t0
        let atSeven = try AlarmFixtures.make(schedule: .relative(hour: 7, minute: 0, repeats: .never), at: t + 7 * 3600)
        XCTAssertEqual(atSeven.nextAlertAt, t + 86_400 + 7 * 3600, "strictly after now")
        let beforeSeven = try AlarmFixtures.make(schedule: .relative(hour: 7, minute: 0, repeats: .never), at: t + 3600)
        XCTAssertEqual(beforeSeven.nextAlertAt, t + 7 * 3600)
    }

    func testWeeklyDaysAreSortedAndDeduplicated() throws {
        let alarm = try AlarmFixtures.make(
            schedule: .relative(hour: 6, minute: 0, repeats: .weekly([.friday, .monday, .friday])), at: 0)
        XCTAssertEqual(alarm.schedule, .relative(hour: 6, minute: 0, repeats: .weekly([.monday, .friday])))
    }

    /// Our gap and overlap rules are `Calendar.nextDate` with `.nextTime` and `.first`, whenever
    /// `after` is not between the two occurrences of a repeated time (see the test above).
    func testAgreesWithFoundationCalendarNextTimeFirst() throws {
        let cases: [(zone: String, starts: [UnixSeconds])] = [
            ("America/New_York", [1_709_985_600, 1_710_000_000, 1_710_050_000, 1_730_548_800, 1_730_600_000]),
            ("Europe/Berlin", [1_711_800_000, 1_711_840_000, 1_729_944_000, 1_729_980_000]),
        ]
        let times = [(0, 0), (1, 0), (1, 30), (1, 59), (2, 0), (2, 30), (2, 59), (3, 0), (3, 30), (12, 15), (23, 59)]
        for (zone, starts) in cases {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = try XCTUnwrap(TimeZone(identifier: zone))
            for start in starts {
                for (hour, minute) in times {
                    let alarm = try AlarmFixtures.make(
                        schedule: .relative(hour: hour, minute: minute, repeats: .never), timeZone: zone, at: start)
                    let expected = calendar.nextDate(
                        after: Date(timeIntervalSince1970: start), matching: DateComponents(hour: hour, minute: minute),
                        matchingPolicy: .nextTime, repeatedTimePolicy: .first)
                    XCTAssertEqual(
                        alarm.nextAlertAt, expected?.timeIntervalSince1970, "\(zone) \(hour):\(minute) after \(start)")
                }
            }
        }
    }
}
