import Foundation
import RelayTestKit
import XCTest

/// The short version of `bench/crash-loop.sh`: `crash_loop.py` kills the built `activity-relay`
/// with SIGKILL three times under provider pushes, app API writes and 100 event-stream
/// subscribers, and after each restart checks that every acknowledged push and write is in the
/// durable log, the event ids have no gap or duplicate, and every subscriber that resumed with
/// `Last-Event-ID` got exactly the events it missed.
final class CrashLoopTests: XCTestCase {
    func testNothingAcknowledgedIsLostAcrossThreeKills() throws {
        try runLoop(extra: [])
    }

    func testNothingAcknowledgedIsLostAcrossThreeKillsWhenEachCommitIsSynced() throws {
        try runLoop(extra: ["--sync"])
    }

    private func runLoop(extra: [String]) throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: RelayBinary.path), "build the package first")
        let outcome = try ChildProcess.run(
            ["python3", Fixtures.path("crash_loop.py"), "--relay", RelayBinary.path, "--kills", "3", "--seed", "40"]
                + extra, timeout: 600)
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("lost 0; failed checks 0; PASS"), outcome.stdout)
    }
}
