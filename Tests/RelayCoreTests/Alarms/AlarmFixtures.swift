import RelayCore
import RelayJSON
import XCTest

/// Shared builders for alarm tests: a valid presentation, ids, and alarms placed in each state.
enum AlarmFixtures {
    static let id = "5F1C0A52-8A4E-4C47-9B7E-2D3F6A1B9C10"
    static let presentation: JSONValue = [
        "alert": ["title": "Wake up", "stopButton": "Stop"], "countdown": ["title": "Soon"],
        "paused": ["title": "Paused"],
    ]
    /// 2024-01-01T00:00:00Z, a Monday.
    static let t0: UnixSeconds = 1_704_067_200

    static func make(
        schedule: AlarmSchedule?, timeZone: String = "UTC", preAlert: Double? = nil, postAlert: Double? = nil,
        at now: UnixSeconds = t0
    ) throws -> Alarm {
        let duration =
            preAlert == nil && postAlert == nil
            ? nil : AlarmCountdownDuration(preAlert: preAlert, postAlert: postAlert)
        return try Alarm.schedule(
            id: id, deviceId: "device-1", bundleId: "com.example.wake", schedule: schedule, timeZone: timeZone,
            countdownDuration: duration, presentation: presentation, at: now)
    }

    /// A one-shot fixed alarm (alert at t0 + 3600, preAlert 600, postAlert 300) in `state`, and
    /// the time it reached that state.
    static func oneShot(in state: AlarmState) throws -> (Alarm, UnixSeconds) {
        var alarm = try make(schedule: .fixed(t0 + 3600), preAlert: 600, postAlert: 300)
        let reached = try drive(&alarm, to: state, countdownAt: t0 + 3000, alertAt: t0 + 3600)
        return (alarm, reached)
    }

    /// A daily 07:00 UTC alarm (preAlert 600, postAlert 300) in `state`; first alert
    /// 2024-01-01T07:00Z.
    static func daily(in state: AlarmState) throws -> (Alarm, UnixSeconds) {
        let everyDay = AlarmSchedule.Weekday.allCases
        var alarm = try make(
            schedule: .relative(hour: 7, minute: 0, repeats: .weekly(everyDay)), preAlert: 600, postAlert: 300)
        let reached = try drive(&alarm, to: state, countdownAt: t0 + 7 * 3600 - 600, alertAt: t0 + 7 * 3600)
        return (alarm, reached)
    }

    private static func drive(
        _ alarm: inout Alarm, to state: AlarmState, countdownAt: UnixSeconds, alertAt: UnixSeconds
    ) throws -> UnixSeconds {
        switch state {
        case .scheduled:
            return t0
        case .countdown:
            _ = alarm.advance(to: countdownAt + 60)
            return countdownAt + 60
        case .paused:
            _ = alarm.advance(to: countdownAt + 60)
            _ = try alarm.pause(at: countdownAt + 100)
            return countdownAt + 100
        case .alerting:
            _ = alarm.advance(to: alertAt)
            return alertAt
        }
    }
}

/// Asserts that `body` throws exactly `expected`.
func assertAlarmError<T>(
    _ body: @autoclosure () throws -> T, _ expected: AlarmError, file: StaticString = #filePath, line: UInt = #line
) {
    do {
        _ = try body()
        XCTFail("expected \(expected), got success", file: file, line: line)
    } catch let error as AlarmError {
        XCTAssertEqual(error, expected, file: file, line: line)
    } catch {
        XCTFail("expected \(expected), got \(error)", file: file, line: line)
    }
}
