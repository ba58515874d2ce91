import Foundation
import RelayNet
import RelayServer
import RelayTestKit
import XCTest

/// Attacks from a hostile client on a live relay (`Fixtures/hostile_client.py`), each asserting the
/// bound the relay keeps and the answer the attacker gets. Deadlines are set to 2 s so the attacks
/// end quickly; the bounds asserted on durations are generous.
final class HostileClientLiveTests: XCTestCase {
    private var relay: LiveRelay!

    override func setUpWithError() throws {
        relay = try LiveRelay(extraRoutes: [EchoRoutes()]) { options in
            options.httpLimits.headerReadTimeout = 2
            options.httpLimits.bodyReadTimeout = 2
            options.httpLimits.sendTimeout = 2
            options.httpLimits.maxQueuedResponseBytes = 1 << 20
            options.httpLimits.firstRequestTimeout = 2
            options.httpLimits.idleTimeout = 2
            options.serverLimits.maxConnectionsPerAddress = 8
            options.serverLimits.lingerSeconds = 0
        }
    }

    override func tearDown() {
        relay?.stop()
        relay = nil
    }

    private func attack(_ mode: String, budget: Double = 40) throws -> [String: Any] {
        let outcome = try ChildProcess.run(
            [
                "python3", Fixtures.path("hostile_client.py"), mode, "--port", String(relay.port), "--cafile",
                relay.caPath, "--budget", String(budget),
            ], timeout: budget + 30)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let line = outcome.stdout.split(separator: "\n").last.map(String.init) ?? ""
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], outcome.stdout)
    }

    private func assertHealthzServed(file: StaticString = #filePath, line: UInt = #line) throws {
        let outcome = try relay.curl(["--http2", "-w", " %{http_code}", "\(relay.base)/healthz"])
        XCTAssertTrue(outcome.stdout.hasSuffix(" 200"), outcome.stdout + outcome.stderr, file: file, line: line)
    }

    /// 128 streams sending bodies that never end: the relay lets in no more than its 1 MiB
    /// connection window (the attack sent 8 MB before), and answers every stream 408 at the body
    /// deadline.
    func testUnfinishedHTTP2BodiesAreBoundedByTheWindowAndAnswered408() throws {
        let found = try attack("h2-bodies")
        let sent = try XCTUnwrap(found["sent"] as? Int)
        XCTAssertLessThanOrEqual(sent, (1 << 20) + 65_536, "\(found)")
        XCTAssertEqual(found["statuses"] as? [String], ["408"], "\(found)")
        XCTAssertEqual(found["answered"] as? Int, 128, "\(found)")
        try assertHealthzServed()
    }

    /// The same attack from 8 connections at once (the per-address limit here): the relay's peak
    /// resident memory grows by less than 24 MiB (bodies that held no window took several MiB per
    /// connection), and `/healthz` is served meanwhile.
    func testUnfinishedBodiesOnEightConnectionsStayUnderTheMemoryCeiling() throws {
        let before = try peakResidentKiB()
        let attackers = try (0..<7).map { _ in
            try ChildProcess([
                "python3", Fixtures.path("hostile_client.py"), "h2-bodies", "--port", String(relay.port), "--cafile",
                relay.caPath, "--budget", "40",
            ])
        }
        try assertHealthzServed()
        for attacker in attackers {
            let outcome = try attacker.wait(timeout: 70)
            XCTAssertTrue(outcome.stdout.contains(#""statuses": ["408"]"#), outcome.stdout + outcome.stderr)
        }
        let grown = try peakResidentKiB() - before
        print("unfinished bodies on 8 connections: peak RSS grew by \(grown) KiB")
        XCTAssertLessThan(grown, 24 << 10, "peak RSS grew by \(grown) KiB")
    }

    /// VmHWM of this process (the relay runs in it), in KiB.
    private func peakResidentKiB() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        return try XCTUnwrap(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }

    /// A zero window with large answers waiting: once 1 MiB (`maxQueuedResponseBytes` here) is
    /// queued, further streams are refused (REFUSED_STREAM), and at the send deadline the peer
    /// gets GOAWAY(ENHANCE_YOUR_CALM) and the connection closes (its queued responses freed).
    func testZeroWindowPeerIsRefusedThenClosedAtTheSendDeadline() throws {
        let found = try attack("h2-zero-window")
        // The second batch at least; of the first, those that arrived after 1 MiB was queued.
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(found["refused"] as? Int), 28, "\(found)")
        XCTAssertEqual(found["goaway"] as? Int, 11, "\(found)")
        XCTAssertEqual(found["closed"] as? Bool, true, "\(found)")
        XCTAssertLessThan(try XCTUnwrap(found["seconds"] as? Double), 30, "\(found)")
        try assertHealthzServed()
    }

    /// A header block trickled in 5-byte CONTINUATION frames ends at the header-read deadline.
    func testTrickledContinuationEndsAtTheHeaderDeadline() throws {
        let found = try attack("h2-continuation")
        XCTAssertEqual(found["goaway"] as? Int, 11, "\(found)")
        XCTAssertLessThan(try XCTUnwrap(found["seconds"] as? Double), 30, "\(found)")
    }

    /// A `:path` holding a space is malformed (RFC 9113 §8.3.1): RST_STREAM(PROTOCOL_ERROR).
    func testPathWithASpaceIsResetWithProtocolError() throws {
        let found = try attack("h2-bad-path", budget: 10)
        XCTAssertEqual(found["reset"] as? Int, 1, "\(found)")
        XCTAssertEqual(found["statuses"] as? [String], [], "\(found)")
    }

    /// PINGs open no stream, so they do not keep a connection past its first-request deadline.
    func testPingsDoNotExtendTheIdleDeadline() throws {
        let found = try attack("h2-pings")
        XCTAssertEqual(found["goaway"] as? Int, 0, "\(found)")
        XCTAssertLessThan(try XCTUnwrap(found["seconds"] as? Double), 30, "\(found)")
    }

    /// HTTP/1.1 headers at one byte every 0.3 s get 408 at the header deadline, not one gap later.
    func testTrickledHTTP1HeadersGet408AtTheDeadline() throws {
        let found = try attack("http1-trickle")
        XCTAssertEqual(found["status"] as? String, "HTTP/1.1 408 Request Timeout", "\(found)")
        XCTAssertLessThan(try XCTUnwrap(found["seconds"] as? Double), 30, "\(found)")
    }

    /// With every slot of the main listener taken, `/healthz` is still answered on the health
    /// listener (`healthListen`), while the main listener refuses.
    func testHealthListenerAnswersWhileTheMainListenerIsFull() throws {
        let full = try LiveRelay { options in
            options.serverLimits.maxConnections = 4
            options.healthHost = "127.0.0.1"
            options.healthPort = 0
        }
        defer { full.stop() }
        let held = try (0..<4).map { _ in try openSocket(port: full.port) }
        defer { for fd in held { close(fd) } }
        let deadline = Date().addingTimeInterval(20)
        while full.runtime.server.connectionCount < 4 && Date() < deadline { usleep(50_000) }
        let refused = try full.curl(["--http2", "\(full.base)/healthz"])
        XCTAssertNotEqual(refused.status, 0, "the main listener is full")
        let healthPort = try XCTUnwrap(full.runtime.healthPort)
        let health = try full.curl(["--http2", "-w", " %{http_code}", "https://localhost:\(healthPort)/healthz"])
        XCTAssertTrue(health.stdout.hasSuffix(" 200"), health.stdout + health.stderr)
        let other = try full.curl(["--http2", "-w", " %{http_code}", "https://localhost:\(healthPort)/v1/clock"])
        XCTAssertTrue(other.stdout.hasSuffix(" 404"), other.stdout + other.stderr)
    }

    private func openSocket(port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        XCTAssertEqual(connected, 0)
        return fd
    }

    /// Past `maxConnectionsPerAddress` (8 here) a connection from the same address is closed at
    /// once and counted; the ones admitted keep working, and slots free up as they close.
    func testConnectionsPastThePerAddressLimitAreRefusedAndCounted() throws {
        var held: [Int32] = []
        defer { for fd in held { close(fd) } }
        for _ in 0..<12 { held.append(try openSocket(port: relay.port)) }
        let deadline = Date().addingTimeInterval(20)
        while relay.runtime.server.refusedConnections < 4 && Date() < deadline { usleep(50_000) }
        XCTAssertEqual(relay.runtime.server.refusedConnections, 4)
        let refused = try relay.curl(["--http2", "\(relay.base)/healthz"])
        XCTAssertNotEqual(refused.status, 0, "a ninth connection from 127.0.0.1 is refused")
        for fd in held { close(fd) }
        held = []
        let freed = Date().addingTimeInterval(20)
        while relay.runtime.server.connectionCount > 0 && Date() < freed { usleep(50_000) }
        try assertHealthzServed()
    }
}
