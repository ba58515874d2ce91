import Foundation
import RelayCore
import RelayJSON
import RelayServer
import XCTest

/// `alarm.updated` alone is enough to render an alarm's countdown at any moment.
final class AlarmCountdownEventTests: XCTestCase {
    private var relay: LiveRelay!

    override func setUpWithError() throws {
        relay = try LiveRelay { options in options.clockMode = .virtual }
    }

    override func tearDown() {
        relay?.stop()
        relay = nil
    }

    func testCountdownPauseResumeAndAlertRenderFromEachEvent() throws {
        let device = try relay.createDevice()
        let stream = try relay.openStream("/v1/stream?types=alarm.updated")
        relay.waitForSubscribers(1)
        let body: JSONValue = [
            "deviceId": .string(device.id), "bundleId": "com.example.tea", "countdownDuration": ["preAlert": 300],
            "presentation": ["alert": ["title": "Tea is ready"], "countdown": ["title": "Steeping"]],
        ]
        let alarmID = try relay.perform(in: .device(device.id)) { emulator, now throws(EmulatorError) in
            try emulator.scheduleAlarm(body: body, at: now).id
        }
        try relay.advanceClock(by: 100)
        _ = try relay.perform(in: .alarm(alarmID)) { emulator, now throws(EmulatorError) in
            try emulator.operateAlarm(id: alarmID, .pause, at: now)
        }
        try relay.advanceClock(by: 50)
        _ = try relay.perform(in: .alarm(alarmID)) { emulator, now throws(EmulatorError) in
            try emulator.operateAlarm(id: alarmID, .resume, at: now)
        }
        try relay.advanceClock(by: 200)  // fires
        let events = try stream.collect(4)
        XCTAssertEqual(
            events.map { $0.json["alarm"]?["state"]?.stringValue }, ["countdown", "paused", "countdown", "alerting"])

        // Each event, read alone at its own time `at` and a little later, renders the countdown.
        let rendered: [(Double, String)] = events.map { event in
            let data = event.json
            let at = data["at"]?.doubleValue ?? .nan
            let state = data["alarm"]?["presentationState"] ?? .null
            let now = AlarmCountdown(presentationState: state, now: at).map(\.text) ?? "none"
            let later = AlarmCountdown(presentationState: state, now: at + 30).map(\.text) ?? "none"
            return (at, now + " / " + later)
        }
        XCTAssertEqual(rendered[0].1, "05:00 left of 05:00 / 04:30 left of 05:00")
        XCTAssertEqual(rendered[1].1, "paused, 03:20 left of 05:00 / paused, 03:20 left of 05:00")
        XCTAssertEqual(rendered[2].1, "03:20 left of 05:00 / 02:50 left of 05:00")
        XCTAssertTrue(rendered[3].1.hasPrefix("alert at "), rendered[3].1)
        XCTAssertEqual(rendered[1].0 - rendered[0].0, 100, "each event carries its own time")
        XCTAssertEqual(rendered[2].0 - rendered[1].0, 50)

        // The running countdown names its end: fireDate = startDate + total - previouslyElapsed.
        let resumed = try XCTUnwrap(events[2].json["alarm"]?["presentationState"])
        XCTAssertEqual(resumed["mode"]?.stringValue, "countdown")
        let start = try XCTUnwrap(resumed["startDate"]?.doubleValue)
        XCTAssertEqual(resumed["fireDate"]?.doubleValue, start + 300 - 100)
        XCTAssertEqual(
            AlarmCountdown(presentationState: resumed, now: start + 500),
            .running(remaining: 0, total: 300, fireDate: start + 200))
        stream.close()
    }

    func testCountdownTextRoundsUpAndFormatsHours() {
        let cases: [(Double, String)] = [
            (0, "00:00"), (0.2, "00:01"), (59.5, "01:00"), (61, "01:01"), (3600, "1:00:00"), (-5, "00:00"),
        ]
        for (seconds, text) in cases { XCTAssertEqual(AlarmCountdown.clockText(seconds), text, "\(seconds)") }
        XCTAssertNil(AlarmCountdown(presentationState: .null, now: 0))
        XCTAssertNil(AlarmCountdown(presentationState: ["mode": "countdown"], now: 0))
    }
}
