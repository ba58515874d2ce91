import RelayNet
import XCTest

final class TLSContextTests: XCTestCase {
    func testMissingCertificateCarriesOpenSSLReason() {
        let config = TLSConfiguration(
            certificateChainPath: "/nonexistent/cert.pem", privateKeyPath: "/nonexistent/key.pem")
        XCTAssertThrowsError(try TLSContext(config)) { error in
            let tls = error as? TLSError
            XCTAssertEqual(tls?.operation, "load certificate chain /nonexistent/cert.pem")
            XCTAssertTrue(tls?.reason.contains("No such file") ?? false, "\(error)")
        }
    }

    func testKeyThatDoesNotMatchCertificateIsRefused() throws {
        let directory = TestCertificate.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try SelfSignedCertificate.ensure(certificatePath: directory + "/c.pem", keyPath: directory + "/k.pem")
        let config = TLSConfiguration(
            certificateChainPath: TestCertificate.shared.certificate, privateKeyPath: directory + "/k.pem")
        XCTAssertThrowsError(try TLSContext(config)) { error in
            XCTAssertTrue((error as? TLSError)?.reason.contains("key values mismatch") ?? false, "\(error)")
        }
    }

    func testOverlongALPNNameAndClientVerificationWithoutCAAreRefused() {
        let shared = TestCertificate.shared
        var config = TLSConfiguration(certificateChainPath: shared.certificate, privateKeyPath: shared.key)
        config.alpnProtocols = [String(repeating: "x", count: 256)]
        XCTAssertThrowsError(try TLSContext(config))
        config.alpnProtocols = ["h2"]
        config.verifyClientCertificate = true
        XCTAssertThrowsError(try TLSContext(config)) { XCTAssertTrue("\($0)".contains("trustedCAPath")) }
    }

    func testSecureRandomReturnsFreshBytes() throws {
        let first = try SecureRandom.bytes(32)
        let second = try SecureRandom.bytes(32)
        XCTAssertEqual(first.count, 32)
        XCTAssertNotEqual(first, second)
        XCTAssertEqual(try SecureRandom.bytes(0), [])
    }
}
