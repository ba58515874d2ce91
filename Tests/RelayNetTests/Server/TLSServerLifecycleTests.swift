import Foundation
import RelayNet
import RelayTestKit
import XCTest

/// Handshake timeouts, descriptor hygiene, connection limits and graceful shutdown.
final class TLSServerLifecycleTests: XCTestCase {
    private var caFile: String { TestCertificate.shared.certificate }

    func testStalledHandshakeIsClosedByTheHandshakeTimeout() throws {
        var limits = ServerLimits()
        limits.handshakeTimeout = 0.3
        let running = try RunningServer.start(limits: limits)
        defer { running.stop() }
        let peer = try RawTCP(port: running.port, timeout: 5)
        defer { peer.close() }
        let start = Date()
        XCTAssertEqual(peer.receive(), 0, "server should close the silent connection")
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertGreaterThan(elapsed, 0.25)
        XCTAssertLessThan(elapsed, 3)
        XCTAssertTrue(running.log.waitFor { $0.errorDescriptions.contains("TLS handshake not finished within 0.3 s") })
        XCTAssertTrue(running.log.waitFor { _ in running.server.connectionCount == 0 })
    }

    func testManyConnectionsOpenedAndClosedLeaveNoDescriptorsBehind() throws {
        let running = try RunningServer.start()
        defer { running.stop() }
        XCTAssertEqual(try ChildProcess.run(["true"]).status, 0)  // let Foundation's process machinery settle
        let baseline = openDescriptorCount()
        let before = openDescriptorTargets()
        let child = try ChildProcess.python("churn", [String(running.port), caFile, "400"])
        child.closeInput()
        let outcome = try child.wait(timeout: 120)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(outcome.stdout, "done\n")
        XCTAssertTrue(
            running.log.waitFor { _ in running.server.connectionCount == 0 },
            "\(running.server.connectionCount) still open")
        XCTAssertTrue(
            running.log.waitFor { _ in openDescriptorCount() <= baseline },
            "new descriptors: \(Set(openDescriptorTargets()).subtracting(before).sorted())")
        XCTAssertEqual(running.log.count("ready -"), 200)
        XCTAssertEqual(running.log.count("closed"), 200)
        // Connections (and with them their SSL objects) are freed, not just closed.
        XCTAssertTrue(
            running.log.waitFor { $0.liveTrackedCount == 0 }, "\(running.log.liveTrackedCount) connections alive")
    }

    func testConnectionsPastTheLimitAreClosedAtOnce() throws {
        var limits = ServerLimits()
        limits.maxConnections = 2
        let running = try RunningServer.start(limits: limits)
        defer { running.stop() }
        let first = try RawTCP(port: running.port)
        let second = try RawTCP(port: running.port)
        defer {
            first.close()
            second.close()
        }
        XCTAssertTrue(running.log.waitFor { _ in running.server.connectionCount == 2 })
        let third = try RawTCP(port: running.port, timeout: 5)
        defer { third.close() }
        XCTAssertLessThanOrEqual(third.receive(), 0, "the third connection should be closed")
        XCTAssertEqual(running.server.connectionCount, 2)
    }

    func testGracefulShutdownAsksHandlersThenClosesEverything() throws {
        let running = try RunningServer.start()
        let client = try ChildProcess.python("goodbye", [String(running.port), caFile])
        XCTAssertTrue(running.log.waitFor { $0.count("received hi") == 1 })
        let silent = try RawTCP(port: running.port, timeout: 5)  // still handshaking: dropped at once
        defer { silent.close() }
        XCTAssertTrue(running.log.waitFor { _ in running.server.connectionCount == 2 })

        running.server.beginShutdown(gracePeriod: 5)
        XCTAssertTrue(running.server.waitUntilClosed(timeout: 10))
        client.closeInput()
        let outcome = try client.wait()
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains(#"{"echo": "hi", "after": "bye"}"#), outcome.stdout)
        XCTAssertEqual(silent.receive(), 0)
        XCTAssertEqual(running.log.count("shutdown requested"), 1)
        XCTAssertEqual(running.log.count("closed"), 1)
        XCTAssertThrowsError(try RawTCP(port: running.port), "the listener should be closed")
        XCTAssertThrowsError(try running.server.bind(host: "127.0.0.1", port: 0))
        running.group.shutdown()
    }

    func testGracePeriodForceClosesHandlersThatIgnoreShutdown() throws {
        final class Stubborn: ConnectionHandler {
            let log: HandlerLog
            init(log: HandlerLog) { self.log = log }
            func connectionReady(_ connection: Connection) { log.record("ready") }
            func connection(_ connection: Connection, received bytes: [UInt8]) {}
            func connectionWritable(_ connection: Connection) {}
            func connectionClosed(_ connection: Connection, error: (any Error)?) {
                log.record("closed \(error.map { "\($0)" } ?? "cleanly")")
            }
            func shutdownRequested(_ connection: Connection) { log.record("ignoring shutdown") }
        }
        let running = try RunningServer.start { Stubborn(log: $0) }
        let client = try ChildProcess.python("goodbye", [String(running.port), caFile])
        defer {
            client.closeInput()
            _ = try? client.wait()
        }
        XCTAssertTrue(running.log.waitFor { $0.count("ready") == 1 })
        let start = Date()
        running.server.beginShutdown(gracePeriod: 0.3)
        XCTAssertTrue(running.server.waitUntilClosed(timeout: 10))
        XCTAssertGreaterThan(Date().timeIntervalSince(start), 0.25)
        XCTAssertEqual(
            running.log.events, ["ready", "ignoring shutdown", "closed closed when the shutdown grace period expired"])
        running.group.shutdown()
    }

    func testCloseSendsWhatWasWrittenBeforeIt() throws {
        final class ReplyAndClose: ConnectionHandler {
            func connectionReady(_ connection: Connection) {}
            func connection(_ connection: Connection, received bytes: [UInt8]) {
                connection.write(bytes)
                connection.close()
            }
            func connectionWritable(_ connection: Connection) {}
            func connectionClosed(_ connection: Connection, error: (any Error)?) {}
            func shutdownRequested(_ connection: Connection) {}
        }
        let running = try RunningServer.start { _ in ReplyAndClose() }
        defer { running.stop() }
        let child = try ChildProcess.python("alpn", [String(running.port), caFile, "127.0.0.1", "h2", "last words"])
        child.closeInput()
        let outcome = try child.wait()
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains(#""echo": "last words""#), outcome.stdout)
    }

    /// After an orderly close the socket reads and drops at most `lingerBytes`, then closes; and a
    /// peer that closes its side ends the lingering at once, long before `lingerSeconds`.
    func testAClosedConnectionLingersUntilThePeerClosesOrItsByteAllowanceIsSpent() throws {
        final class RefuseAndClose: ConnectionHandler {
            func connectionReady(_ connection: Connection) {}
            func connection(_ connection: Connection, received bytes: [UInt8]) {
                connection.write(Array("no".utf8))
                connection.closeAfterFlush()
            }
            func connectionWritable(_ connection: Connection) {}
            func connectionClosed(_ connection: Connection, error: (any Error)?) {}
            func shutdownRequested(_ connection: Connection) {}
        }
        var limits = ServerLimits()
        limits.lingerSeconds = 30
        limits.lingerBytes = 64 * 1024
        let running = try RunningServer.start(limits: limits) { _ in RefuseAndClose() }
        defer { running.stop() }
        let script = #"""
            import socket, ssl, sys, time
            ctx = ssl.create_default_context(cafile=sys.argv[2])
            s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[1]))), server_hostname="localhost")
            s.settimeout(10)
            s.sendall(b"x")
            data = b""
            while True:
                chunk = s.recv(4096)
                if not chunk: break
                data += chunk
            print(data.decode())
            if sys.argv[3] == "close":
                s.close()
                sys.exit(0)
            sent = 0
            try:
                for _ in range(24):
                    s.sendall(b"a" * 16384)
                    sent += 16384
                    time.sleep(0.02)
            except OSError:
                print("reset after", sent)
                sys.exit(0)
            print("sent", sent)
            """#
        XCTAssertEqual(try ChildProcess.run(["true"]).status, 0)  // let Foundation's process machinery settle
        let baseline = openDescriptorCount()
        let closing = try ChildProcess.run(["python3", "-c", script, String(running.port), caFile, "close"])
        XCTAssertEqual(closing.stdout, "no\n", closing.stderr)
        XCTAssertTrue(
            running.log.waitFor(timeout: 5) { _ in openDescriptorCount() <= baseline },
            "the lingering socket outlived its peer: \(openDescriptorCount()) descriptors, \(baseline) before")

        let sending = try ChildProcess.run(["python3", "-c", script, String(running.port), caFile, "send"])
        let lines = sending.stdout.split(separator: "\n")
        XCTAssertEqual(lines.first, "no", sending.stdout + sending.stderr)
        // Up to the allowance the bytes are read; past it the socket is closed and the peer is reset.
        let sent = lines.last.flatMap { $0.hasPrefix("reset after ") ? Int($0.dropFirst(12)) : nil }
        XCTAssertNotNil(sent, sending.stdout + sending.stderr)
        XCTAssertGreaterThanOrEqual(sent ?? 0, 64 * 1024, sending.stdout)
    }

    func testStoppingTheGroupClosesOpenConnections() throws {
        let running = try RunningServer.start()
        let peer = try RawTCP(port: running.port, timeout: 5)
        defer { peer.close() }
        XCTAssertTrue(running.log.waitFor { _ in running.server.connectionCount == 1 })
        running.group.shutdown()
        XCTAssertEqual(peer.receive(), 0)
        XCTAssertEqual(running.server.connectionCount, 0)
    }
}
