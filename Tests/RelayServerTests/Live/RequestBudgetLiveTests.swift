import Foundation
import RelayNet
import RelayServer
import RelayTestKit
import XCTest

/// The process-wide budget for request bytes held while requests arrive
/// (`http.maxBufferedRequestBytesTotal`, 1 MiB here): attackers that together send more unfinished
/// bodies than it allows are refused (HTTP/2 REFUSED_STREAM, HTTP/1.1 `503` with `retry-after`)
/// instead of the relay's memory growing, and `/healthz` is served meanwhile.
final class RequestBudgetLiveTests: XCTestCase {
    private var relay: LiveRelay!

    override func setUpWithError() throws {
        relay = try LiveRelay(extraRoutes: [EchoRoutes()]) { options in
            options.httpLimits.maxBufferedRequestBytesTotal = 1 << 20
            options.httpLimits.bodyReadTimeout = 8
            options.serverLimits.lingerSeconds = 0
        }
    }

    override func tearDown() {
        relay?.stop()
        relay = nil
    }

    private func attacker(_ mode: String) throws -> ChildProcess {
        try ChildProcess([
            "python3", Fixtures.path("hostile_client.py"), mode, "--port", String(relay.port), "--cafile",
            relay.caPath, "--budget", "12",
        ])
    }

    private func findings(_ attacker: ChildProcess) throws -> [String: Any] {
        let outcome = try attacker.wait(timeout: 60)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let line = outcome.stdout.split(separator: "\n").last.map(String.init) ?? ""
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], outcome.stdout)
    }

    private func assertHealthzServed() throws {
        let outcome = try relay.curl(["--http2", "-w", " %{http_code}", "\(relay.base)/healthz"])
        XCTAssertTrue(outcome.stdout.hasSuffix(" 200"), outcome.stdout + outcome.stderr)
    }

    /// Three connections of 128 unfinished HTTP/2 bodies (up to 1 MiB each, their windows): past
    /// 1 MiB held in all, streams are refused; peak RSS grows by less than 24 MiB.
    func testUnfinishedHTTP2BodiesPastTheBudgetAreRefused() throws {
        let before = try peakResidentKiB()
        let attackers = try (0..<3).map { _ in try attacker("h2-bodies") }
        try assertHealthzServed()
        let refused = try attackers.map { try XCTUnwrap(try findings($0)["refused"] as? Int) }
        XCTAssertGreaterThan(refused.reduce(0, +), 0, "no stream was refused: \(refused)")
        let grown = try peakResidentKiB() - before
        XCTAssertLessThan(grown, 24 << 10, "peak RSS grew by \(grown) KiB")
        try assertHealthzServed()
    }

    /// 24 HTTP/1.1 connections each holding 50,000 bytes of an unfinished body: past 1 MiB, a
    /// connection gets `503` with `retry-after: 1` and is closed.
    func testUnfinishedHTTP1BodiesPastTheBudgetGet503() throws {
        let found = try findings(try attacker("http1-bodies"))
        let answers = try XCTUnwrap(found["answers"] as? [[String: Any]], "\(found)")
        let refusals = answers.filter { ($0["status"] as? String)?.hasPrefix("HTTP/1.1 503") == true }
        XCTAssertFalse(refusals.isEmpty, "\(found)")
        for refusal in refusals { XCTAssertEqual(refusal["retryAfter"] as? String, "1", "\(found)") }
        try assertHealthzServed()
    }

    /// VmHWM of this process (the relay runs in it), in KiB.
    private func peakResidentKiB() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        return try XCTUnwrap(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }
}
