import Foundation
import RelayTestKit
import XCTest

/// Each attack on the relay's memory and connection slots, run against the built `activity-relay`
/// (`Fixtures/hostile_client.py`): the relay's resident memory (VmRSS of its process, sampled
/// while the attack runs) stays under a stated ceiling, `/healthz` is answered meanwhile (within
/// 5 s), and the attacker gets the protocol's answer.
final class MemoryCeilingLiveTests: XCTestCase {
    /// Runs a hostile client mode against `relay` and returns its findings.
    private func attack(_ relay: KillableRelay, _ mode: String, _ options: [String], budget: Double = 40) throws
        -> [String: Any]
    {
        let outcome = try ChildProcess.run(
            [
                "python3", Fixtures.path("hostile_client.py"), mode, "--port", String(relay.port), "--cafile",
                relay.ca, "--budget", String(budget),
            ] + options, timeout: budget + 60)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let line = outcome.stdout.split(separator: "\n").last.map(String.init) ?? ""
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], outcome.stdout)
    }

    /// 1,000 push log entries of about 4.5 KB each: `/v1/pushes?limit=1000` answers 4.5 MB.
    private func seedPushLog(_ relay: KillableRelay) throws {
        let token = try ChildProcess.run([RelayBinary.path, "token", "--data", relay.data])
        XCTAssertEqual(token.status, 0, token.stderr)
        let jwt = token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let seeded = try attack(relay, "seed-pushes", ["--jwt", jwt, "--count", "1000"])
        XCTAssertEqual(seeded["answered"] as? Int, 1000, "\(seeded)")
    }

    /// Asserts that the attacker's `/healthz` probe was answered `200`.
    private func assertHealthzServed(_ found: [String: Any], file: StaticString = #filePath, line: UInt = #line) {
        let health = found["healthz"] as? [String: Any]
        XCTAssertEqual(health?["status"] as? String, "200", "\(found)", file: file, line: line)
    }

    /// Runs `body` while sampling the relay's memory; returns how far its VmRSS peaked above
    /// where it was before, in KiB.
    private func residentGrowth(_ relay: KillableRelay, during body: () throws -> Void) throws -> Int {
        let before = try XCTUnwrap(ResidentMemoryPeak.residentKiB(relay.processIdentifier))
        let peak = ResidentMemoryPeak(pid: relay.processIdentifier)
        try body()
        return peak.stop() - before
    }

    /// Four connections with a zero window each ask 128 times for 1,000 push log entries (2.3 GB
    /// as whole answers), then never open the window: every stream is answered `200` and holds
    /// about a page, so VmRSS grows by less than 48 MiB and nothing is refused.
    func testZeroWindowListAnswersStayUnderTheMemoryCeiling() throws {
        let relay = try KillableRelay(name: "ceiling-zero-window")
        try seedPushLog(relay)
        var found: [String: Any] = [:]
        let grown = try residentGrowth(relay) {
            found = try attack(
                relay, "h2-zero-window-lists",
                ["--bearer=\(relay.admin)", "--path", "/v1/pushes?limit=1000", "--connections", "4", "--hold", "2"])
        }
        print("zero-window list answers on 4 x 128 streams: VmRSS grew by \(grown) KiB")
        XCTAssertEqual(found["answered"] as? Int, 512, "\(found)")
        XCTAssertEqual(found["statuses"] as? [String], ["200"], "\(found)")
        XCTAssertEqual(found["refused"] as? Int, 0, "\(found)")
        assertHealthzServed(found)
        XCTAssertLessThan(grown, 48 << 10, "VmRSS grew by \(grown) KiB")
        try relay.stop()
    }

    /// 32 HTTP/1.1 connections ask for 1,000 push log entries each (145 MB as whole answers) and
    /// read nothing: each gets a `200` with a chunked body that stops where the socket is full,
    /// and VmRSS grows by less than 48 MiB.
    func testUnreadHTTP1ListAnswersStayUnderTheMemoryCeiling() throws {
        let relay = try KillableRelay(name: "ceiling-http1-unread")
        try seedPushLog(relay)
        var found: [String: Any] = [:]
        let grown = try residentGrowth(relay) {
            found = try attack(
                relay, "http1-unread-lists",
                ["--bearer=\(relay.admin)", "--path", "/v1/pushes?limit=1000", "--connections", "32", "--hold", "3"])
        }
        print("unread HTTP/1.1 list answers on 32 connections: VmRSS grew by \(grown) KiB")
        let answers = try XCTUnwrap(found["answers"] as? [[String: Any]], "\(found)")
        XCTAssertEqual(answers.count, 32, "\(found)")
        XCTAssertEqual(Set(answers.compactMap { $0["status"] as? String }), ["http/1.1 200 ok"], "\(found)")
        XCTAssertEqual(answers.filter { $0["chunked"] as? Bool == true }.count, 32, "\(found)")
        assertHealthzServed(found)
        XCTAssertLessThan(grown, 48 << 10, "VmRSS grew by \(grown) KiB")
        try relay.stop()
    }

    /// With `maxBufferedRequestBytesTotal` at 1 MiB, three HTTP/2 connections of 128 unfinished
    /// bodies and 24 HTTP/1.1 ones: streams are refused (REFUSED_STREAM), HTTP/1.1 requests get
    /// `503` with `retry-after`, and VmRSS grows by less than 32 MiB.
    func testRequestBudgetAttackStaysUnderTheMemoryCeiling() throws {
        let relay = try KillableRelay(
            name: "ceiling-request-budget",
            config: #""http": {"maxBufferedRequestBytesTotal": 1048576, "bodyReadTimeout": 8}"#)
        let path = ["--post-path", "/3/device/" + String(repeating: "ab", count: 32)]
        var refused = 0
        var answers: [[String: Any]] = []
        let grown = try residentGrowth(relay) {
            let attackers = try (0..<3).map { _ in
                try ChildProcess(
                    [
                        "python3", Fixtures.path("hostile_client.py"), "h2-bodies", "--port", String(relay.port),
                        "--cafile", relay.ca, "--budget", "12",
                    ] + path)
            }
            let http1 = try attack(relay, "http1-bodies", path, budget: 12)
            answers = try XCTUnwrap(http1["answers"] as? [[String: Any]], "\(http1)")
            let health = try ChildProcess.run(
                [
                    "curl", "-sS", "--http2", "--max-time", "5", "--cacert", relay.ca, "-w", " %{http_code}",
                    "https://localhost:\(relay.port)/healthz",
                ], timeout: 30)
            XCTAssertTrue(health.stdout.hasSuffix(" 200"), health.stdout + health.stderr)
            for attacker in attackers {
                let outcome = try attacker.wait(timeout: 60)
                let line = outcome.stdout.split(separator: "\n").last.map(String.init) ?? ""
                let found = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                refused += try XCTUnwrap(found?["refused"] as? Int, outcome.stdout + outcome.stderr)
            }
        }
        print("request budget attack: VmRSS grew by \(grown) KiB, \(refused) streams refused")
        XCTAssertGreaterThan(refused, 0, "no HTTP/2 stream was refused")
        let refusals = answers.filter { ($0["status"] as? String)?.hasPrefix("HTTP/1.1 503") == true }
        XCTAssertFalse(refusals.isEmpty, "\(answers)")
        for refusal in refusals { XCTAssertEqual(refusal["retryAfter"] as? String, "1", "\(answers)") }
        XCTAssertLessThan(grown, 32 << 10, "VmRSS grew by \(grown) KiB")
        try relay.stop()
    }

    /// 250 TLS connections from one address with `maxConnectionsPerAddress` at 200: 200 are
    /// admitted and held, the rest are closed at once; a client from another address (127.0.0.2)
    /// gets `/healthz`, and VmRSS grows by less than 32 MiB.
    func testConnectionSlotExhaustionStaysUnderTheMemoryCeiling() throws {
        let relay = try KillableRelay(
            name: "ceiling-slots", config: #""http": {"maxConnectionsPerAddress": 200, "firstRequestTimeout": 60}"#)
        var found: [String: Any] = [:]
        let grown = try residentGrowth(relay) {
            found = try attack(
                relay, "connection-slots", ["--connections", "250", "--source", "127.0.0.2", "--hold", "2"])
        }
        print("250 connections from one address: VmRSS grew by \(grown) KiB")
        XCTAssertEqual(found["admitted"] as? Int, 200, "\(found)")
        XCTAssertEqual(found["refused"] as? Int, 50, "\(found)")
        assertHealthzServed(found)
        XCTAssertLessThan(grown, 32 << 10, "VmRSS grew by \(grown) KiB")
        try relay.stop()
    }
}
