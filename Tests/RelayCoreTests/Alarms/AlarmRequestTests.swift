import RelayCore
import RelayJSON
import XCTest

/// Parsing the `POST /v1/alarms` body: accepted shapes and errors that name the JSON path.
final class AlarmRequestTests: XCTestCase {
    private let now: UnixSeconds = 1_704_067_200

    private func body(_ overrides: JSONObject, removing: [String] = []) -> JSONValue {
        var members: JSONObject = [
            "deviceId": "device-1", "bundleId": "com.example.wake",
            "schedule": ["relative": ["hour": 7, "minute": 30, "repeats": ["weekly": ["monday", "friday"]]]],
            "presentation": AlarmFixtures.presentation,
        ]
        for (key, value) in overrides { members[key] = value }
        for key in removing { members[key] = nil }
        return .object(members)
    }

    func testFullBodyIsParsed() throws {
        let alarm = try Alarm.fromRequest(
            body([
                "id": "0B6E1C2D-3A4F-4B5C-8D9E-0F1A2B3C4D5E", "timeZone": "Europe/Berlin",
                "countdownDuration": ["preAlert": 600, "postAlert": 300.5], "metadata": ["room": "bedroom"],
                "tintColor": "#FF8800", "sound": "chimes.caf", "unknownField": true,
            ]), defaultId: AlarmFixtures.id, at: now)
        XCTAssertEqual(alarm.id, "0B6E1C2D-3A4F-4B5C-8D9E-0F1A2B3C4D5E")
        XCTAssertEqual(alarm.schedule, .relative(hour: 7, minute: 30, repeats: .weekly([.monday, .friday])))
        XCTAssertEqual(alarm.timeZone, "Europe/Berlin")
        XCTAssertEqual(alarm.countdownDuration, AlarmCountdownDuration(preAlert: 600, postAlert: 300.5))
        XCTAssertEqual(alarm.metadata, ["room": "bedroom"])
        XCTAssertEqual(alarm.tintColor, "#FF8800")
        XCTAssertEqual(alarm.sound, "chimes.caf")
        XCTAssertEqual(alarm.nextAlertAt, 1_704_090_600)  // Mon 2024-01-01 07:30 CET = 06:30Z
    }

    func testDefaultsAndNullMembers() throws {
        let alarm = try Alarm.fromRequest(
            body(["schedule": ["fixed": 1_704_070_800], "metadata": nil, "timeZone": nil, "countdownDuration": nil]),
            defaultId: AlarmFixtures.id, at: now)
        XCTAssertEqual(alarm.id, AlarmFixtures.id)
        XCTAssertEqual(alarm.timeZone, "UTC")
        XCTAssertNil(alarm.metadata)
        XCTAssertNil(alarm.countdownDuration)
        XCTAssertEqual(alarm.schedule, .fixed(1_704_070_800))
    }

    func testRepeatsDefaultsToNeverAndAcceptsNever() throws {
        for repeats: JSONValue? in [nil, "never"] {
            var relative: JSONObject = ["hour": 7, "minute": 0]
            relative["repeats"] = repeats
            let alarm = try Alarm.fromRequest(
                body(["schedule": ["relative": .object(relative)]]), defaultId: AlarmFixtures.id, at: now)
            XCTAssertEqual(alarm.schedule, .relative(hour: 7, minute: 0, repeats: .never))
        }
    }

    func testTimerBodyWithoutSchedule() throws {
        let alarm = try Alarm.fromRequest(
            body(["countdownDuration": ["preAlert": 90]], removing: ["schedule"]), defaultId: AlarmFixtures.id, at: now)
        XCTAssertEqual(alarm.state, .countdown)
        XCTAssertEqual(alarm.nextAlertAt, now + 90)
    }

    func testInvalidBodiesNameTheField() {
        let deep: JSONValue = (0..<20).reduce(JSONValue.int(1)) { inner, _ in ["x": inner] }
        let cases: [(JSONValue, String)] = [
            ("text", "body: must be an object (got \"text\")"),
            (body([:], removing: ["deviceId"]), "deviceId: is required"),
            (body(["bundleId": 5]), "bundleId: must be a string (got 5)"),
            (body(["deviceId": ""]), "deviceId: must be a non-empty string of at most 255 bytes (got 0 bytes)"),
            (body(["id": "not-a-uuid"]), "id: must be a UUID string"),
            (
                body(["schedule": ["relative": ["hour": 24, "minute": 0]]]),
                "schedule.relative.hour: must be an integer 0-23 (got 24)"
            ),
            (
                body(["schedule": ["relative": ["hour": "7", "minute": 0]]]),
                "schedule.relative.hour: must be an integer 0-23 (got \"7\")"
            ),
            (
                body(["schedule": ["relative": ["hour": 7.5, "minute": 0]]]),
                "schedule.relative.hour: must be an integer 0-23 (got 7.5)"
            ),
            (
                body(["schedule": ["relative": ["minute": 0]]]),
                "schedule.relative.hour: must be an integer 0-23 (missing)"
            ),
            (
                body(["schedule": ["relative": ["hour": 7, "minute": 60]]]),
                "schedule.relative.minute: must be an integer 0-59 (got 60)"
            ),
            (
                body(["schedule": ["relative": ["hour": 7, "minute": 0, "repeats": "daily"]]]),
                "schedule.relative.repeats: must be \"never\" or"
            ),
            (
                body(["schedule": ["relative": ["hour": 7, "minute": 0, "repeats": ["weekly": []]]]]),
                "schedule.relative.repeats.weekly: must list at least one weekday"
            ),
            (
                body(["schedule": ["relative": ["hour": 7, "minute": 0, "repeats": ["weekly": ["monday", "funday"]]]]]),
                "schedule.relative.repeats.weekly[1]: must be a weekday name"
            ),
            (
                body(["schedule": ["relative": ["hour": 7, "minute": 0, "repeats": ["weekly": "monday"]]]]),
                "schedule.relative.repeats.weekly: must be an array"
            ),
            (
                body([
                    "schedule": [
                        "relative": [
                            "hour": 7, "minute": 0, "repeats": ["weekly": .array(Array(repeating: "monday", count: 8))],
                        ]
                    ]
                ]),
                "schedule.relative.repeats.weekly: must list at most 7 weekdays (got 8)"
            ),
            (body(["schedule": ["relative": "07:00"]]), "schedule.relative: must be an object"),
            (body(["schedule": [:]]), "schedule: must have exactly one of"),
            (
                body(["schedule": ["fixed": 1_704_070_800, "relative": ["hour": 1, "minute": 0]]]),
                "schedule: must have exactly one of"
            ),
            (body(["schedule": "tomorrow"]), "schedule: must be an object"),
            (body(["schedule": ["fixed": "soon"]]), "schedule.fixed: must be a number"),
            (body(["schedule": ["fixed": 1_704_067_199]]), "schedule.fixed: is in the past"),
            (body(["schedule": ["fixed": 1e15]]), "schedule.fixed: must be Unix seconds between"),
            (body(["timeZone": "Mars/Olympus_Mons"]), "timeZone: unknown time zone \"Mars/Olympus_Mons\""),
            (body(["timeZone": .string(String(repeating: "A", count: 65))]), "timeZone: must be a non-empty string"),
            (body(["countdownDuration": ["preAlert": -5]]), "countdownDuration.preAlert: must be a positive number"),
            (body(["countdownDuration": ["preAlert": 0]]), "countdownDuration.preAlert: must be a positive number"),
            (body(["countdownDuration": ["postAlert": 1e9]]), "countdownDuration.postAlert: must be a positive number"),
            (
                body(["countdownDuration": ["postAlert": "x"]]),
                "countdownDuration.postAlert: must be a number (got \"x\")"
            ),
            (body(["countdownDuration": 60]), "countdownDuration: must be an object"),
            (body([:], removing: ["schedule"]), "schedule: is required when countdownDuration.preAlert is absent"),
            (
                body(["countdownDuration": ["postAlert": 60]], removing: ["schedule"]),
                "schedule: is required when countdownDuration.preAlert is absent"
            ),
            (body([:], removing: ["presentation"]), "presentation: is required"),
            (body(["presentation": [:]]), "presentation.alert: is required"),
            (body(["presentation": ["alert": "Wake up"]]), "presentation.alert: must be an object"),
            (body(["presentation": ["alert": [:], "countdown": 5]]), "presentation.countdown: must be an object"),
            (
                body(["presentation": ["alert": ["title": .string(String(repeating: "z", count: 5000))]]]),
                "presentation: must encode to at most 4096 bytes"
            ),
            (
                body(["metadata": .array(Array(repeating: "0123456789", count: 400))]),
                "metadata: must encode to at most"
            ),
            (body(["metadata": deep]), "metadata: must encode to at most 4096 bytes nested at most 16 deep"),
            (body(["tintColor": 5]), "tintColor: must be a string"),
            (body(["sound": ""]), "sound: must be a non-empty string"),
        ]
        for (request, expected) in cases {
            do {
                let alarm = try Alarm.fromRequest(request, defaultId: AlarmFixtures.id, at: now)
                XCTFail("accepted \(alarm.json), expected \(expected)")
            } catch {
                guard case .invalidField = error else { return XCTFail("\(error) is not a field error") }
                XCTAssertTrue(error.message.hasPrefix(expected), "\(error.message)\n does not start with \(expected)")
                XCTAssertEqual(error.code, "invalidRequest")
            }
        }
    }
}
