import Foundation
import RelayCore
import RelayServer
import XCTest

/// A relay stopped and started again on the same data directory comes back exactly as it was:
/// objects, the virtual clock, the event sequence and the timed transitions still to come.
final class AppAPIRestartTests: XCTestCase {
    private var relay: LiveRelay?
    /// The data directory both relays of a test run on.
    private let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("relay-test-\(UUID().uuidString)")

    override func tearDown() {
        relay?.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    private func start() throws -> LiveRelay {
        let started = try LiveRelay(directory: directory) { $0.clockMode = .virtual }
        relay = started
        return started
    }

    func testStateSequenceAndPendingTransitionsSurviveARestart() throws {
        let first = try start()
        var api = AppAPIClient(relay: first)
        let device = try api.expect(201, "POST", "/v1/devices")
        let deviceId = device["deviceId"]?.stringValue ?? ""
        let deviceKey = device["deviceKey"]?.stringValue ?? ""
        let t0 = try api.expect(200, "GET", "/v1/clock")["now"]?.doubleValue ?? 0
        let activity = try api.expect(
            201, "POST", "/v1/activities",
            json: AppAPIHarness.startBody(
                deviceId: deviceId, extra: ["staleDate": .number(t0 + 3600), "pushType": "token"]))
        let activityId = activity["id"]?.stringValue ?? ""
        let alarm = try api.expect(
            201, "POST", "/v1/alarms",
            json: AppAPIHarness.alarmBody(
                deviceId: deviceId,
                extra: ["schedule": ["fixed": .number(t0 + 7200)], "countdownDuration": ["preAlert": 600]]))
        let alarmId = alarm["id"]?.stringValue ?? ""
        try api.expect(200, "POST", "/v1/clock", json: ["advanceBy": 600])
        try api.expect(
            200, "POST", "/v1/activities/\(activityId)/update",
            json: ["contentState": ["status": "on the way"], "staleDate": .number(t0 + 3600)])

        let paths = ["/v1/devices/\(deviceId)", "/v1/activities/\(activityId)", "/v1/alarms/\(alarmId)", "/v1/clock"]
        let before = try paths.map { try api.expect(200, "GET", $0) }
        let lastSeq = try XCTUnwrap(first.runtime.service.store.reader.latestEventSeq())
        let deadline = first.runtime.service.nextDeadline()
        XCTAssertEqual(deadline, t0 + 3600, "the stale date is the next transition")
        first.stop()

        let second = try start()
        api = AppAPIClient(relay: second)
        XCTAssertEqual(try paths.map { try api.expect(200, "GET", $0) }, before)
        XCTAssertEqual(second.runtime.service.nextDeadline(), deadline)
        XCTAssertEqual(try second.runtime.service.store.reader.latestEventSeq(), lastSeq, "nothing fired on the way up")
        // The device key still works, and only for its own device.
        let deviceAPI = AppAPIClient(relay: second, key: deviceKey)
        try deviceAPI.expect(200, "GET", "/v1/activities/\(activityId)")

        try api.expect(200, "POST", "/v1/clock", json: ["advanceBy": .number(13 * 3600)])
        let fired = try second.runtime.service.store.reader.events(after: lastSeq, limit: 100)
        let startedAt = activity["startedAt"]?.doubleValue ?? 0
        XCTAssertEqual(
            fired.map(\.type),
            ["activity.stale", "alarm.updated", "alarm.updated", "activity.ended", "activity.dismissed", "clock"])
        XCTAssertEqual(
            fired.map(\.at),
            [t0 + 3600, t0 + 6600, t0 + 7200, startedAt + 8 * 3600, startedAt + 12 * 3600, t0 + 600 + 13 * 3600])
        XCTAssertEqual(fired.map(\.seq), Array((lastSeq + 1)...(lastSeq + 6)), "the sequence continues")
        XCTAssertEqual(try api.expect(200, "GET", "/v1/activities/\(activityId)")["state"], "dismissed")
        XCTAssertEqual(try api.expect(200, "GET", "/v1/alarms/\(alarmId)")["state"], "alerting")
    }

    func testVirtualClockRateSurvivesARestart() throws {
        let first = try start()
        let api = AppAPIClient(relay: first)
        let moved = try api.expect(200, "POST", "/v1/clock", json: ["advanceBy": 86_400])
        try api.expect(200, "POST", "/v1/clock", json: ["rate": 0])
        first.stop()
        let second = try start()
        let clock = try AppAPIClient(relay: second).expect(200, "GET", "/v1/clock")
        XCTAssertEqual(clock["now"], moved["now"], "a stopped virtual clock shows the same time after a restart")
        XCTAssertEqual(clock["mode"], "virtual")
    }
}
