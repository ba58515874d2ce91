import Foundation
import RelayNet
import RelayTestKit
import XCTest

/// Real clients (Python's ssl module, curl, openssl s_client) against a live server on port 0.
final class TLSServerClientTests: XCTestCase {
    private var running: RunningServer!

    override func setUpWithError() throws { running = try .start() }
    override func tearDown() { running.stop() }

    private var port: String { String(running.port) }
    private var caFile: String { TestCertificate.shared.certificate }

    private func pythonALPN(offering protocols: String, host: String = "127.0.0.1") throws -> [String: String?] {
        let child = try ChildProcess.python("alpn", [port, caFile, host, protocols, "ping"])
        child.closeInput()
        let outcome = try child.wait()
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let object = try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any]
        return (object ?? [:]).mapValues { $0 as? String }
    }

    func testALPNPrefersH2AndFallsBackToHTTP11() throws {
        let cases: [(offered: String, selected: String?)] = [
            ("h2,http/1.1", "h2"),
            ("http/1.1,h2", "h2"),  // server preference wins
            ("http/1.1", "http/1.1"),
            ("spdy/3", nil),  // no overlap: carry on without ALPN
            ("-", nil),
        ]
        for entry in cases {
            let result = try pythonALPN(offering: entry.offered)
            XCTAssertEqual(result["alpn"] ?? nil, entry.selected, "offered \(entry.offered)")
            XCTAssertEqual(result["echo"] ?? nil, "ping")
            XCTAssertEqual(result["version"] ?? nil, "TLSv1.3")
        }
        XCTAssertEqual(running.log.count("ready h2"), 2)
        XCTAssertEqual(running.log.count("ready http/1.1"), 1)
    }

    func testCurlVerifiesTheSelfSignedCertificateByNameAndByIP() throws {
        running.stop()
        running = try .start { _ in TinyHTTPHandler() }
        for host in ["localhost", "127.0.0.1"] {
            let outcome = try ChildProcess.run([
                "curl", "--silent", "--show-error", "--http1.1", "--cacert", caFile, "https://\(host):\(port)/hello",
            ])
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
            XCTAssertEqual(outcome.stdout, "hello over http/1.1\n")
        }
        let untrusted = try ChildProcess.run(["curl", "--silent", "--http1.1", "https://localhost:\(port)/"])
        XCTAssertEqual(untrusted.status, 60, "without --cacert curl must reject the certificate")
    }

    func testTLS11IsRefusedWhileTLS12Succeeds() throws {
        func sClient(_ version: String) throws -> ChildProcess.Outcome {
            try ChildProcess.run([
                "openssl", "s_client", "-connect", "127.0.0.1:\(port)", "-servername", "localhost", version,
                "-cipher", "DEFAULT@SECLEVEL=0", "-CAfile", caFile,
            ])
        }
        let old = try sClient("-tls1_1")
        XCTAssertNotEqual(old.status, 0, old.stdout)
        XCTAssertTrue(log(containsError: "unsupported protocol"), "\(running.log.errorDescriptions)")

        let current = try sClient("-tls1_2")
        XCTAssertEqual(current.status, 0, current.stderr)
        XCTAssertTrue(current.stdout.contains("Protocol  : TLSv1.2"), current.stdout)
        XCTAssertTrue(current.stdout.contains("Verify return code: 0 (ok)"), current.stdout)
    }

    private func log(containsError fragment: String) -> Bool {
        running.log.waitFor(timeout: 5) { $0.errorDescriptions.contains { $0.contains(fragment) } }
    }

    func testServesIPv6Loopback() throws {
        running.stop()
        running = try .start(host: "::1")
        let result = try pythonALPN(offering: "h2", host: "::1")
        XCTAssertEqual(result["echo"] ?? nil, "ping")
    }
}
