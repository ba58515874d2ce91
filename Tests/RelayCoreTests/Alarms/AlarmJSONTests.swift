import RelayCore
import RelayJSON
import XCTest

/// The alarm's JSON shape (CONTRACT section 5) and restoring alarms from it.
final class AlarmJSONTests: XCTestCase {
    func testScheduledAlarmShape() throws {
        let alarm = try AlarmFixtures.make(
            schedule: .relative(hour: 7, minute: 0, repeats: .weekly([.monday])), preAlert: 600, at: AlarmFixtures.t0)
        XCTAssertEqual(
            alarm.json,
            [
                "id": .string(AlarmFixtures.id), "deviceId": "device-1", "bundleId": "com.example.wake",
                "state": "scheduled",
                "schedule": ["relative": ["hour": 7, "minute": 0, "repeats": ["weekly": ["monday"]]]],
                "timeZone": "UTC", "countdownDuration": ["preAlert": 600, "postAlert": nil],
                "nextAlertAt": 1_704_092_400,
                "presentationState": ["mode": "alert", "time": ["hour": 7, "minute": 0]],
                "presentation": AlarmFixtures.presentation, "metadata": nil, "tintColor": nil, "sound": nil,
                "occurrenceAt": 1_704_092_400, "hasAlerted": false, "removedAt": nil,
            ])
    }

    func testPresentationStateShapes() {
        XCTAssertEqual(
            AlarmPresentationState.countdown(
                totalCountdownDuration: 300, previouslyElapsedDuration: 12.5, startDate: 1000, fireDate: 1287.5
            ).json,
            [
                "mode": "countdown", "totalCountdownDuration": 300, "previouslyElapsedDuration": 12.5,
                "startDate": 1000, "fireDate": 1287.5,
            ])
        XCTAssertEqual(
            AlarmPresentationState.paused(totalCountdownDuration: 300, previouslyElapsedDuration: 100).json,
            ["mode": "paused", "totalCountdownDuration": 300, "previouslyElapsedDuration": 100])
        XCTAssertEqual(AlarmSchedule.fixed(1_704_070_800.25).json, ["fixed": 1_704_070_800.25])
        XCTAssertEqual(
            AlarmSchedule.relative(hour: 6, minute: 5, repeats: .never).json,
            ["relative": ["hour": 6, "minute": 5, "repeats": "never"]])
    }

    func testRoundTripInEveryStateAndAfterRemoval() throws {
        var alarms: [Alarm] = []
        for state in AlarmState.allCases {
            alarms.append(try AlarmFixtures.oneShot(in: state).0)
            alarms.append(try AlarmFixtures.daily(in: state).0)
        }
        var snoozed = try AlarmFixtures.make(schedule: nil, preAlert: 7.25, postAlert: 3.5, at: 10.5)
        _ = snoozed.advance(to: 100)
        _ = try snoozed.countdown(at: 101.75)
        alarms.append(snoozed)
        var removed = try AlarmFixtures.oneShot(in: .alerting).0
        _ = try removed.stop(at: AlarmFixtures.t0 + 4000)
        alarms.append(removed)
        alarms.append(
            try Alarm.schedule(
                id: AlarmFixtures.id, deviceId: "d", bundleId: "b", schedule: .fixed(5000), timeZone: "Asia/Kolkata",
                countdownDuration: nil, presentation: ["alert": [:]], metadata: ["n": [1, 2.5, nil, true]],
                tintColor: "red", sound: "default", at: 0))

        for alarm in alarms {
            XCTAssertEqual(try Alarm.fromJSON(alarm.json), alarm, "\(alarm.state) \(alarm.json)")
        }
    }

    func testRestoredAlarmKeepsRunning() throws {
        let (alarm, _) = try AlarmFixtures.daily(in: .paused)
        var restored = try Alarm.fromJSON(alarm.json)
        _ = try restored.resume(at: AlarmFixtures.t0 + 8 * 3600)
        XCTAssertEqual(
            restored.presentationState,
            .countdown(
                totalCountdownDuration: 600, previouslyElapsedDuration: 100, startDate: AlarmFixtures.t0 + 8 * 3600,
                fireDate: AlarmFixtures.t0 + 8 * 3600 + 500))
    }

    func testRestoringAPastFixedAlarmIsAllowed() throws {
        let (alarm, _) = try AlarmFixtures.oneShot(in: .scheduled)
        var restored = try Alarm.fromJSON(alarm.json)
        XCTAssertEqual(restored.advance(to: AlarmFixtures.t0 + 86_400).count, 2)
    }

    func testCorruptStoredAlarmsAreRefusedWithThePath() throws {
        let good = try AlarmFixtures.oneShot(in: .countdown).0.json
        func changing(_ key: String, to value: JSONValue?) -> JSONValue {
            var members = good.objectValue ?? [:]
            members[key] = value
            return .object(members)
        }
        let cases: [(JSONValue, String)] = [
            ([1, 2], "alarm: must be an object"),
            (changing("state", to: "ringing"), "state: unknown state \"ringing\""),
            (changing("state", to: "paused"), "presentationState: does not fit state paused"),
            (changing("presentationState", to: nil), "presentationState: does not fit state countdown"),
            (changing("presentationState", to: ["mode": "snoozing"]), "presentationState.mode: must be"),
            (changing("nextAlertAt", to: 5), "nextAlertAt: must equal presentationState.fireDate"),
            (changing("nextAlertAt", to: -5), "nextAlertAt: must be Unix seconds in range"),
            (changing("removedAt", to: 10), "removedAt: a removed alarm has null"),
            (changing("hasAlerted", to: "yes"), "hasAlerted: must be a boolean"),
            (changing("timeZone", to: "Nowhere/Land"), "timeZone: unknown time zone"),
            (changing("id", to: nil), "id: is required"),
            (changing("schedule", to: ["fixed": "x"]), "schedule.fixed: must be a number"),
            (
                changing(
                    "presentationState",
                    to: [
                        "mode": "countdown", "totalCountdownDuration": 600, "previouslyElapsedDuration": 700,
                        "startDate": 0, "fireDate": .number(AlarmFixtures.t0 + 3600),
                    ]),
                "presentationState.previouslyElapsedDuration: must be between 0 and totalCountdownDuration"
            ),
        ]
        for (stored, expected) in cases {
            XCTAssertThrowsError(try Alarm.fromJSON(stored)) { error in
                let message = (error as? AlarmError)?.message ?? "\(error)"
                XCTAssertTrue(message.hasPrefix(expected), "\(message)\n does not start with \(expected)")
            }
        }
    }

    func testErrorCodesAndMessages() {
        XCTAssertEqual(AlarmError.invalidState(current: .paused, operation: "pause").code, "invalidState")
        XCTAssertEqual(
            AlarmError.invalidState(current: .paused, operation: "pause").message,
            "cannot pause an alarm in state paused")
        XCTAssertEqual(AlarmError.noCountdownDuration(id: "x").code, "invalidState")
        XCTAssertEqual(AlarmError.alarmRemoved(id: "x").code, "notFound")
    }
}
