import RelayCore
import RelayServer
import XCTest

/// A weekly relative alarm keeps its wall-clock time across daylight-saving changes, driven
/// entirely through the app API on the virtual clock. Expected instants come from Python's
/// `zoneinfo` (America/New_York, 2030: clocks go forward on 10 March and back on 3 November).
final class AlarmDaylightSavingTests: XCTestCase {
    private var api: AppAPIHarness!
    private var device: (id: String, key: String)!

    override func setUpWithError() throws {
        api = try AppAPIHarness()
        device = api.createDevice()
    }

    override func tearDown() { api.close() }

    private func setClock(_ time: UnixSeconds) {
        let reply = api.send("POST", "/v1/clock", json: ["set": .number(time)])
        XCTAssertEqual(reply.status, 200, "\(reply.json)")
    }

    /// Schedules "Mondays 07:30 in New York" with a five-minute countdown; returns its id.
    private func scheduleMondayAlarm() -> String {
        let reply = api.send(
            "POST", "/v1/alarms", key: device.key,
            json: AppAPIHarness.alarmBody(
                deviceId: device.id,
                extra: [
                    "schedule": ["relative": ["hour": 7, "minute": 30, "repeats": ["weekly": ["monday"]]]],
                    "timeZone": "America/New_York", "countdownDuration": ["preAlert": 300],
                ]))
        XCTAssertEqual(reply.status, 201, "\(reply.json)")
        return reply["id"]?.stringValue ?? ""
    }

    /// Moves the clock just past `alertAt` and checks the countdown and the alert fired at their own times.
    private func ring(_ id: String, at alertAt: UnixSeconds, file: StaticString = #filePath, line: UInt = #line) throws
    {
        let before = try api.events().last?.seq ?? 0
        setClock(alertAt + 60)
        let fired = try api.events(after: before).filter { $0.alarmId == id }
        XCTAssertEqual(fired.map(\.type), ["alarm.updated", "alarm.updated"], file: file, line: line)
        XCTAssertEqual(fired.map(\.at), [alertAt - 300, alertAt], file: file, line: line)
        XCTAssertEqual(
            api.send("GET", "/v1/alarms/\(id)", key: device.key)["state"], "alerting", file: file, line: line)
    }

    func testWeeklyAlarmCrossesSpringForward() throws {
        setClock(1_898_726_400)  // Sunday 2030-03-03T00:00Z
        let id = scheduleMondayAlarm()
        XCTAssertEqual(api.send("GET", "/v1/alarms/\(id)")["nextAlertAt"]?.doubleValue, 1_898_857_800)  // 12:30Z (EST)

        try ring(id, at: 1_898_857_800)
        let stopped = api.send("POST", "/v1/alarms/\(id)/stop", key: device.key)
        XCTAssertEqual(stopped["state"], "scheduled")
        // 07:30 EDT on 11 March is 11:30Z: one week minus the hour the clocks went forward.
        XCTAssertEqual(stopped["nextAlertAt"]?.doubleValue, 1_899_459_000)
        XCTAssertEqual(stopped["presentationState"]?["time"], ["hour": 7, "minute": 30])

        try ring(id, at: 1_899_459_000)
        let again = api.send("POST", "/v1/alarms/\(id)/stop", key: device.key)
        XCTAssertEqual(again["nextAlertAt"]?.doubleValue, 1_900_063_800, "a full week once on summer time")
    }

    func testWeeklyAlarmCrossesFallBack() throws {
        setClock(1_919_340_000)  // Sunday 2030-10-27T14:00Z
        let id = scheduleMondayAlarm()
        XCTAssertEqual(api.send("GET", "/v1/alarms/\(id)")["nextAlertAt"]?.doubleValue, 1_919_417_400)  // 11:30Z (EDT)

        try ring(id, at: 1_919_417_400)
        let stopped = api.send("POST", "/v1/alarms/\(id)/stop", key: device.key)
        // 07:30 EST on 4 November is 12:30Z: one week plus the hour the clocks went back.
        XCTAssertEqual(stopped["nextAlertAt"]?.doubleValue, 1_920_025_800)
        try ring(id, at: 1_920_025_800)
    }
}
