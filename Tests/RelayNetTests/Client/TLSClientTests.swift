import Foundation
import RelayNet
import XCTest

/// The client side of RelayNet's TLS against the echo server: verification by CA, name and address,
/// ALPN, timeouts and the server's close.
final class TLSClientTests: XCTestCase {
    private var running: RunningServer!

    override func setUpWithError() throws { running = try .start() }
    override func tearDown() { running.stop() }

    private var caFile: String { TestCertificate.shared.certificate }

    func testEchoesOverAVerifiedConnectionByNameAndByAddress() throws {
        let context = try TLSClientContext(caFile: caFile, alpn: ["http/1.1"])
        for host in ["localhost", "127.0.0.1"] {
            let client = try TLSClient.connect(host: host, port: running.port, context: context)
            XCTAssertEqual(client.alpnProtocol, "http/1.1")
            try client.write(Array("ping".utf8))
            XCTAssertEqual(try client.read(timeout: 5), .bytes(Array("ping".utf8)))
            XCTAssertEqual(try client.read(timeout: 0.1), .timedOut)
            XCTAssertEqual(try client.read(timeout: 0), .timedOut)
            client.close()
        }
    }

    func testLargeWritesAndReadsComplete() throws {
        let context = try TLSClientContext(caFile: caFile)
        let client = try TLSClient.connect(host: "localhost", port: running.port, context: context)
        let payload = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try client.write(payload)
        var received: [UInt8] = []
        while received.count < payload.count, case .bytes(let bytes) = try client.read(timeout: 5) {
            received.append(contentsOf: bytes)
        }
        XCTAssertTrue(received == payload)
        client.close()
    }

    func testRefusesAnUntrustedCertificateAndAWrongName() throws {
        let system = try TLSClientContext(caFile: "/etc/ssl/certs/ca-certificates.crt")
        XCTAssertThrowsError(try TLSClient.connect(host: "localhost", port: running.port, context: system)) { error in
            XCTAssertTrue("\(error)".contains("self-signed certificate"), "\(error)")
        }
        running.stop()
        running = try .start(host: "0.0.0.0")  // reachable as 127.0.0.2, an address the certificate does not name
        let trusting = try TLSClientContext(caFile: caFile)
        XCTAssertThrowsError(try TLSClient.connect(host: "127.0.0.2", port: running.port, context: trusting)) { error in
            XCTAssertTrue("\(error)".contains("IP address mismatch"), "\(error)")
        }
    }

    func testMissingCAFileAndClosedPortAreErrors() throws {
        XCTAssertThrowsError(try TLSClientContext(caFile: "/nonexistent/ca.pem")) { error in
            XCTAssertTrue("\(error)".contains("/nonexistent/ca.pem"), "\(error)")
        }
        let context = try TLSClientContext(caFile: caFile)
        running.stop()
        XCTAssertThrowsError(try TLSClient.connect(host: "127.0.0.1", port: running.port, context: context, timeout: 2))
        running = try .start()
    }

    func testServerCloseIsReportedAsClosed() throws {
        let context = try TLSClientContext(caFile: caFile)
        let client = try TLSClient.connect(host: "localhost", port: running.port, context: context)
        running.stop()
        var result = try client.read(timeout: 5)
        while case .bytes = result { result = try client.read(timeout: 5) }
        XCTAssertEqual(result, .closed)
        client.close()
        running = try .start()
    }
}
