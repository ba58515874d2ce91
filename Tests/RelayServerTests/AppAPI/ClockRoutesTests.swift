import RelayCore
import RelayJSON
import RelayServer
import XCTest

/// `/v1/clock`: reading it, moving the virtual clock, and the transitions that fire on the way.
final class ClockRoutesTests: XCTestCase {
    private var api: AppAPIHarness!

    override func tearDown() { api?.close() }

    func testGetShowsNowModeAndRate() throws {
        api = try AppAPIHarness()
        let reply = api.send("GET", "/v1/clock")
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(reply["mode"], "virtual")
        XCTAssertEqual(reply["rate"]?.doubleValue, 0)
        XCTAssertEqual(reply["now"]?.doubleValue, api.now)
    }

    func testAdvanceSetAndRate() throws {
        api = try AppAPIHarness()
        let start = api.now
        let advanced = api.send("POST", "/v1/clock", json: ["advanceBy": 3600])
        XCTAssertEqual(advanced.status, 200)
        XCTAssertEqual(advanced["now"]?.doubleValue, start + 3600)
        let set = api.send("POST", "/v1/clock", json: ["set": .number(start + 7200.5)])
        XCTAssertEqual(set["now"]?.doubleValue, start + 7200.5)
        let rate = api.send("POST", "/v1/clock", json: ["rate": 60])
        XCTAssertEqual(rate.status, 200)
        XCTAssertEqual(rate["rate"]?.doubleValue, 60)
        XCTAssertEqual(try api.events().last?.type, "clock")
    }

    func testBackwardsIs409AndBadBodiesAre400() throws {
        api = try AppAPIHarness()
        let backwards = api.send("POST", "/v1/clock", json: ["set": .number(api.now - 1)])
        XCTAssertEqual(backwards.status, 409)
        XCTAssertEqual(backwards.error, "clockBackwards")
        XCTAssertEqual(backwards["now"]?.doubleValue, api.now)
        let cases: [JSONValue] = [
            [:], ["advanceBy": 1, "rate": 2], ["advanceBy": -5], ["advanceBy": "1h"], ["rate": -1], ["set": 1e300],
            ["speed": 2],
        ]
        for body in cases {
            let reply = api.send("POST", "/v1/clock", json: body)
            XCTAssertEqual(reply.status, 400, "\(body)")
            XCTAssertEqual(reply.error, "invalidRequest", "\(body)")
        }
    }

    func testSystemClockCannotBeMoved() throws {
        api = try AppAPIHarness(clock: .system)
        XCTAssertEqual(api.send("GET", "/v1/clock")["mode"], "system")
        let reply = api.send("POST", "/v1/clock", json: ["advanceBy": 60])
        XCTAssertEqual(reply.status, 409)
        XCTAssertEqual(reply.error, "systemClock")
        XCTAssertTrue(reply["message"]?.stringValue?.contains("--clock virtual") == true)
        XCTAssertTrue(reply["message"]?.stringValue?.contains("system clock") == true)
    }

    func testOneJumpFiresEveryTransitionInOrderWithItsOwnTime() throws {
        api = try AppAPIHarness()
        let device = api.createDevice()
        let start = api.now
        let activity = api.startActivity(deviceId: device.id, extra: ["staleDate": .number(start + 1800)])
        let alarm = api.send(
            "POST", "/v1/alarms",
            json: AppAPIHarness.alarmBody(
                deviceId: device.id,
                extra: ["schedule": ["fixed": .number(start + 3600)], "countdownDuration": ["preAlert": 600]]))
        let alarmId = alarm["id"]?.stringValue
        let before = try api.events().last?.seq ?? 0

        XCTAssertEqual(api.send("POST", "/v1/clock", json: ["advanceBy": 46_800]).status, 200)

        let fired = try api.events(after: before)
        let expected: [(String, UnixSeconds)] = [
            ("activity.stale", start + 1800), ("alarm.updated", start + 3000), ("alarm.updated", start + 3600),
            ("activity.ended", start + 8 * 3600), ("activity.dismissed", start + 12 * 3600),
            ("clock", start + 13 * 3600),
        ]
        XCTAssertEqual(fired.map(\.type), expected.map(\.0))
        XCTAssertEqual(fired.map(\.at), expected.map(\.1))
        XCTAssertEqual(fired.map(\.seq), Array((before + 1)...(before + Int64(expected.count))))
        XCTAssertEqual(fired.compactMap(\.activityId), [activity, activity, activity])
        XCTAssertEqual(fired.compactMap(\.alarmId), [alarmId, alarmId].compactMap { $0 })
        XCTAssertEqual(api.send("GET", "/v1/activities/\(activity)")["state"], "dismissed")
        XCTAssertEqual(api.send("GET", "/v1/alarms/\(alarmId ?? "")")["state"], "alerting")
    }
}
