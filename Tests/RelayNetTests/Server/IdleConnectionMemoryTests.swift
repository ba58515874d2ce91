import Foundation
import RelayNet
import RelayTestKit
import XCTest

/// Measures what an idle TLS connection costs the server, the figure that bounds how many a box can hold.
final class IdleConnectionMemoryTests: XCTestCase {
    /// Connections held open for the measurement.
    static let connections = 2_000
    /// Budget per idle connection (socket buffers live in the kernel and are not counted in RSS).
    static let budgetKiB = 40

    func testTwoThousandIdleTLSConnectionsStayWithinBudget() throws {
        var limits = ServerLimits()
        limits.maxConnectionsPerAddress = Self.connections + 100  // every connection is from 127.0.0.1
        let running = try RunningServer.start(limits: limits)
        defer { running.stop() }
        // Warm up allocator arenas and OpenSSL's lazy tables so the baseline is not flattered.
        let warmup = try ChildProcess.python("hold", [String(running.port), caFile, "50"])
        XCTAssertTrue(running.log.waitFor(timeout: 60) { $0.count("received z") == 50 })
        warmup.closeInput()
        _ = try warmup.wait()
        XCTAssertTrue(running.log.waitFor { _ in running.server.connectionCount == 0 })

        let baseline = residentKiB()
        let holder = try ChildProcess.python("hold", [String(running.port), caFile, String(Self.connections)])
        XCTAssertTrue(
            running.log.waitFor(timeout: 120) { $0.count("received z") == 50 + Self.connections },
            "only \(running.log.count("received z") - 50) connections echoed")
        usleep(200_000)  // let the last writes drain and the BIOs be recycled
        let loaded = residentKiB()
        XCTAssertEqual(running.server.connectionCount, Self.connections)
        holder.closeInput()
        let outcome = try holder.wait(timeout: 120)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)

        let perConnection = Double(loaded - baseline) / Double(Self.connections)
        print(
            "idle TLS connection: \(String(format: "%.1f", perConnection)) KiB RSS each (\(Self.connections) connections, \(loaded - baseline) KiB total)"
        )
        XCTAssertLessThan(perConnection, Double(Self.budgetKiB))
        XCTAssertTrue(running.log.waitFor(timeout: 30) { _ in running.server.connectionCount == 0 })
    }

    private var caFile: String { TestCertificate.shared.certificate }
}
