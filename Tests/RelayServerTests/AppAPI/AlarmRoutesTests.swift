import RelayCore
import RelayJSON
import RelayServer
import XCTest

/// `/v1/alarms`: scheduling, the AlarmKit operations and their state rules, reads and lists.
final class AlarmRoutesTests: XCTestCase {
    private var api: AppAPIHarness!
    private var device: (id: String, key: String)!

    override func setUpWithError() throws {
        api = try AppAPIHarness()
        device = api.createDevice()
    }

    override func tearDown() { api.close() }

    private func schedule(_ extra: JSONObject) -> AppAPIHarness.Reply {
        api.send("POST", "/v1/alarms", json: AppAPIHarness.alarmBody(deviceId: device.id, extra: extra))
    }

    private func advance(_ seconds: Double) {
        XCTAssertEqual(api.send("POST", "/v1/clock", json: ["advanceBy": .number(seconds)]).status, 200)
    }

    func testOneShotAlarmThroughEveryOperation() {
        let alertAt = api.now + 3600
        let created = schedule([
            "schedule": ["fixed": .number(alertAt)], "countdownDuration": ["preAlert": 600, "postAlert": 300],
        ])
        XCTAssertEqual(created.status, 201, "\(created.json)")
        XCTAssertEqual(created["state"], "scheduled")
        XCTAssertEqual(created["nextAlertAt"]?.doubleValue, alertAt)
        XCTAssertEqual(created["presentationState"]?["mode"], "alert")
        let id = created["id"]?.stringValue ?? ""

        func operate(_ operation: String) -> AppAPIHarness.Reply { api.send("POST", "/v1/alarms/\(id)/\(operation)") }

        let early = operate("pause")
        XCTAssertEqual(early.status, 409)
        XCTAssertEqual(early.error, "invalidState")
        XCTAssertEqual(early["state"], "scheduled")

        advance(3000)
        XCTAssertEqual(api.send("GET", "/v1/alarms/\(id)")["state"], "countdown")
        let paused = operate("pause")
        XCTAssertEqual(paused.status, 200)
        XCTAssertEqual(paused["state"], "paused")
        XCTAssertEqual(paused["presentationState"]?["mode"], "paused")
        XCTAssertEqual(operate("pause")["state"], "paused", "a second pause is refused with the state")
        XCTAssertEqual(operate("resume")["state"], "countdown")
        XCTAssertEqual(operate("countdown").status, 409)

        advance(3600)
        XCTAssertEqual(api.send("GET", "/v1/alarms/\(id)")["state"], "alerting")
        let snoozed = operate("countdown")
        XCTAssertEqual(snoozed.status, 200)
        XCTAssertEqual(snoozed["state"], "countdown")
        XCTAssertEqual(snoozed["presentationState"]?["totalCountdownDuration"]?.doubleValue, 300)

        let stopped = operate("stop")
        XCTAssertEqual(stopped.status, 200)
        XCTAssertNotEqual(stopped["removedAt"], .null)
        XCTAssertEqual(api.send("GET", "/v1/alarms/\(id)").status, 404)
        XCTAssertEqual(operate("cancel").status, 404)
    }

    func testCancelRemovesAnyAlarm() {
        let id =
            schedule(["schedule": ["relative": ["hour": 7, "minute": 0, "repeats": ["weekly": ["monday"]]]]])["id"]?
            .stringValue ?? ""
        XCTAssertEqual(api.send("POST", "/v1/alarms/\(id)/cancel").status, 200)
        XCTAssertEqual(api.send("GET", "/v1/alarms/\(id)").status, 404)
    }

    func testDeniedAuthorizationIs403AndNotDeterminedIsGranted() {
        let settings = "/v1/devices/\(device.id)/apps/com.example.wake"
        XCTAssertEqual(schedule(["schedule": ["fixed": .number(api.now + 60)]]).status, 201)
        XCTAssertEqual(api.send("GET", settings)["alarmAuthorization"], "authorized")
        _ = api.send("PUT", settings, json: ["alarmAuthorization": "denied"])
        let denied = schedule(["schedule": ["fixed": .number(api.now + 60)]])
        XCTAssertEqual(denied.status, 403)
        XCTAssertEqual(denied.error, "alarmsNotAuthorized")
    }

    func testScheduleErrors() {
        let cases: [(JSONValue, Int, String)] = [
            (["deviceId": .string(device.id), "bundleId": "com.example.wake"], 400, "invalidRequest"),
            (
                AppAPIHarness.alarmBody(deviceId: device.id, extra: ["schedule": ["fixed": "soon"]]), 400,
                "invalidRequest"
            ),
            (
                AppAPIHarness.alarmBody(
                    deviceId: device.id,
                    extra: ["schedule": ["relative": ["hour": 25, "minute": 0, "repeats": "never"]]]),
                400, "invalidRequest"
            ),
            (AppAPIHarness.alarmBody(deviceId: device.id, extra: ["timeZone": "Mars/Olympus"]), 400, "invalidRequest"),
            (AppAPIHarness.alarmBody(deviceId: "nobody"), 404, "notFound"),
        ]
        for (body, status, code) in cases {
            let reply = api.send("POST", "/v1/alarms", json: body)
            XCTAssertEqual(reply.status, status, "\(body)")
            XCTAssertEqual(reply.error, code, "\(reply.json)")
        }
        let id = "5F1C0A52-8A4E-4C47-9B7E-2D3F6A1B9C10"
        XCTAssertEqual(schedule(["id": .string(id)]).status, 201)
        let duplicate = schedule(["id": .string(id)])
        XCTAssertEqual(duplicate.status, 409)
        XCTAssertEqual(duplicate.error, "alreadyExists")
        XCTAssertEqual(api.send("POST", "/v1/alarms/\(id)/pause", json: ["force": true]).status, 400)
    }

    func testListIsOrderedByNextAlert() {
        let later = schedule(["schedule": ["fixed": .number(api.now + 7200)]])["id"]?.stringValue
        let sooner = schedule(["schedule": ["fixed": .number(api.now + 600)]])["id"]?.stringValue
        let other = api.createDevice()
        _ = api.send("POST", "/v1/alarms", json: AppAPIHarness.alarmBody(deviceId: other.id))
        let mine = api.send("GET", "/v1/alarms?deviceId=\(device.id)")
        XCTAssertEqual(mine.status, 200)
        XCTAssertEqual(mine["items"]?.arrayValue?.map { $0["id"]?.stringValue }, [sooner, later])
        XCTAssertEqual(api.send("GET", "/v1/alarms")["items"]?.arrayValue?.count, 3)
        XCTAssertEqual(api.send("GET", "/v1/alarms?deviceId=\(other.id)")["items"]?.arrayValue?.count, 1)
    }
}
