import Foundation
import RelayNet
import RelayTestKit
import XCTest

/// A handler that streams a large reply only while the connection is writable: the pattern the HTTP/2
/// layer uses for big bodies and event streams.
private final class FloodHandler: ConnectionHandler {
    private let log: HandlerLog
    private var remaining = 0
    private var position = 0

    /// Bytes `i % 251`, long enough to slice any 32 KiB window from.
    private static let pattern: [UInt8] = (0..<(32 * 1024 + 251)).map { UInt8($0 % 251) }

    init(log: HandlerLog) { self.log = log }

    func connectionReady(_ connection: Connection) {}

    func connection(_ connection: Connection, received bytes: [UInt8]) {
        let request = String(decoding: bytes, as: UTF8.self)
        guard request.hasPrefix("flood "), let size = Int(request.dropFirst(6)) else { return connection.close() }
        remaining = size
        pour(into: connection)
    }

    private func pour(into connection: Connection) {
        while remaining > 0 && connection.isWritable {
            let count = min(remaining, 32 * 1024)
            connection.write(Array(Self.pattern[position % 251..<position % 251 + count]))
            position += count
            remaining -= count
        }
        if remaining == 0 { log.record("sent all, pending \(connection.pendingWriteBytes > 0)") }
    }

    func connectionWritable(_ connection: Connection) {
        log.record("writable")
        pour(into: connection)
    }

    func connectionClosed(_ connection: Connection, error: (any Error)?) { log.record("closed") }
    func shutdownRequested(_ connection: Connection) { connection.close() }
}

final class BackpressureTests: XCTestCase {
    func testSlowReaderGetsEveryByteAndTheWriterIsThrottled() throws {
        let size = 8 * 1024 * 1024
        let running = try RunningServer.start { FloodHandler(log: $0) }
        defer { running.stop() }
        let child = try ChildProcess.python(
            "flood", [String(running.port), TestCertificate.shared.certificate, String(size)])
        child.closeInput()
        let outcome = try child.wait()
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let expectedSum = (size / 251 * (250 * 251 / 2) + (0..<size % 251).reduce(0, +)) % (1 << 32)
        XCTAssertEqual(outcome.stdout, "{\"count\": \(size), \"sum\": \(expectedSum)}\n")
        XCTAssertGreaterThan(running.log.count("writable"), 0, "the high-water mark should have been crossed")
        XCTAssertTrue(running.log.waitFor { $0.events.last == "closed" }, "\(running.log.events.suffix(3))")
    }
}
