import Foundation
import RelayCore
import RelayJSON
import RelayNet
import RelayServer
import RelayTestKit
import XCTest

/// `activity-relay watch`: the `--once` cards from the built binary, and the session resuming
/// after the relay goes away.
final class WatchCommandTests: XCTestCase {
    private var relay: LiveRelay?
    /// The data directory of a test that restarts its relay on it.
    private let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("relay-test-\(UUID().uuidString)")

    override func tearDown() {
        relay?.stop()
        relay = nil
        try? FileManager.default.removeItem(at: directory)
    }

    func testOncePrintsActivityCardsAndAlarmCountdownsAtTheRelaysTime() throws {
        let relay = try LiveRelay { options in options.clockMode = .virtual }
        self.relay = relay
        try (LiveRelay.adminKey + "\n").write(
            to: relay.directory.appendingPathComponent("admin-key"), atomically: true, encoding: .utf8)
        let device = try relay.createDevice()
        let start = relay.now
        let body: JSONValue = [
            "deviceId": .string(device.id), "bundleId": "com.example.app", "attributesType": "DeliveryAttributes",
            "attributes": ["order": "A1"], "contentState": ["eta": "12:30", "step": 3],
            "staleDate": .number(start + 1800),
        ]
        let activity = try relay.perform(in: .device(device.id)) { emulator, now throws(EmulatorError) in
            try emulator.startActivity(body: body, at: now).id
        }
        let alarmBody: JSONValue = [
            "deviceId": .string(device.id), "bundleId": "com.example.tea", "countdownDuration": ["preAlert": 300],
            "presentation": ["alert": ["title": "Tea is ready"]],
        ]
        let alarm = try relay.perform(in: .device(device.id)) { emulator, now throws(EmulatorError) in
            try emulator.scheduleAlarm(body: alarmBody, at: now).id
        }
        try relay.advanceClock(by: 120)

        let first = try watchOnce(relay)
        XCTAssertEqual(first.status, 0, first.stderr)
        let lines = first.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertTrue(lines[0].hasPrefix("relay time "), lines[0])
        XCTAssertTrue(lines[0].contains("(virtual, rate 0)"), lines[0])
        XCTAssertEqual(
            Array(lines[2...7]),
            [
                "ACTIVITIES (1)",
                "+- DeliveryAttributes  com.example.app  \(activity.prefix(8))  ACTIVE",
                #"|  {"eta":"12:30","step":3}"#,
                "|  stale: no (stale date \(clockText(start + 1800)))   ends in 7h 58m 00s",
                "+-",
                "",
            ])
        XCTAssertEqual(lines[8], "ALARMS (1)")
        XCTAssertEqual(
            lines[9], "   \(alarm.prefix(8))  com.example.tea  COUNTDOWN  03:00 left of 05:00  \"Tea is ready\"")
        XCTAssertFalse(first.stdout.contains("\u{1B}"), "no escape codes with --once")

        try relay.advanceClock(by: 3600)  // stale, the alarm fired
        let later = try watchOnce(relay, extra: ["--device", device.id])
        XCTAssertTrue(later.stdout.contains("  STALE\n"), later.stdout)
        XCTAssertTrue(later.stdout.contains("stale: yes"), later.stdout)
        XCTAssertTrue(later.stdout.contains("ends in 6h 58m 00s"), later.stdout)
        XCTAssertTrue(later.stdout.contains("ALERTING  alert at "), later.stdout)

        let refused = try watchOnce(relay, extra: ["--key", "wrong-key"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("HTTP 401"), refused.stderr)
        let badFlag = try ChildProcess.run([RelayBinary.path, "watch", "--url", "localhost:8443"])
        XCTAssertEqual(badFlag.status, 2)
    }

    func testSessionResumesAfterTheRelayRestarts() throws {
        let first = try LiveRelay(directory: directory)
        relay = first
        let device = try first.createDevice()
        let activity = try first.startActivity(deviceId: device.id)
        var options = WatchSession.Options(host: "localhost", port: first.port, key: LiveRelay.adminKey)
        options.ansi = false
        options.maxBackoff = 1
        let watcher = Watcher(WatchSession(options: options, context: try first.clientContext()))
        XCTAssertTrue(watcher.waitFor { $0.contains(String(activity.prefix(8))) }, watcher.lastScreen)
        try first.updateActivity(activity, count: 1)
        XCTAssertTrue(watcher.waitFor { $0.contains(#""step":1"#) }, watcher.lastScreen)

        let port = first.port
        first.stop()
        relay = nil
        let second = try LiveRelay(directory: directory) { options in options.port = port }
        relay = second
        try second.updateActivity(activity, count: 1, from: 2)  // while the watcher is away
        XCTAssertTrue(watcher.waitFor { $0.contains(#""step":2"#) }, watcher.lastScreen)
        XCTAssertTrue(watcher.statuses.contains { $0.contains("resuming after event") }, "\(watcher.statuses)")
        watcher.stop()
    }

    func testCardsNameTheDevice() throws {
        let relay = try LiveRelay { options in options.clockMode = .virtual }
        self.relay = relay
        try (LiveRelay.adminKey + "\n").write(
            to: relay.directory.appendingPathComponent("admin-key"), atomically: true, encoding: .utf8)
        let deviceID = try relay.perform { emulator, now in
            emulator.createDevice(keyHash: "unused", name: "Kitchen iPad", model: "iPad Air", at: now).id
        }
        let body: JSONValue = [
            "deviceId": .string(deviceID), "bundleId": "com.example.app", "attributesType": "DeliveryAttributes",
            "attributes": [:], "contentState": ["step": 1],
        ]
        _ = try relay.perform(in: .device(deviceID)) { emulator, now throws(EmulatorError) in
            try emulator.startActivity(body: body, at: now)
        }
        let watched = try watchOnce(relay)
        XCTAssertEqual(watched.status, 0, watched.stderr)
        XCTAssertTrue(watched.stdout.contains("|  on Kitchen iPad (iPad Air)   stale: no"), watched.stdout)
    }

    private func watchOnce(_ relay: LiveRelay, extra: [String] = []) throws -> ChildProcess.Outcome {
        try ChildProcess.run(
            [
                RelayBinary.path, "watch", "--url", "https://localhost:\(relay.port)", "--data", relay.directory.path,
                "--once",
            ]
                + extra, timeout: 30)
    }

    private func clockText(_ time: Double) -> String {
        let seconds = Int(time.rounded(.down)) % 86_400
        return String(format: "%02d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
    }
}

/// Runs a `WatchSession` on its own thread and keeps what it printed.
final class Watcher: @unchecked Sendable {  // Sendable: `screen` and `lines` are guarded by `lock`.
    private let lock = NSLock()
    private var screen = ""
    private var lines: [String] = []
    private let session: WatchSession
    private let done = DispatchSemaphore(value: 0)

    init(_ session: WatchSession) {
        self.session = session
        nonisolated(unsafe) let unsafeSession = session
        Thread.detachNewThread { [self] in
            _ = unsafeSession.run(
                output: { text in self.locked { self.screen = text } },
                status: { line in self.locked { self.lines.append(line) } })
            done.signal()
        }
    }

    var lastScreen: String { locked { screen } }
    var statuses: [String] { locked { lines } }

    /// Waits up to `timeout` seconds for a screen that satisfies `condition`.
    func waitFor(timeout: Double = 15, _ condition: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(lastScreen) { return true }
            usleep(20_000)
        }
        return false
    }

    func stop() {
        session.stop()
        _ = done.wait(timeout: .now() + 5)
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
