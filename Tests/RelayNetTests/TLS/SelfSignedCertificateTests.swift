import Foundation
import RelayNet
import RelayTestKit
import XCTest

final class SelfSignedCertificateTests: XCTestCase {
    func testCreatesKeyWithMode0600OnceAndReusesIt() throws {
        let directory = TestCertificate.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certificate = directory + "/tls-cert.pem"
        let key = directory + "/tls-key.pem"
        XCTAssertTrue(try SelfSignedCertificate.ensure(certificatePath: certificate, keyPath: key))
        let original = try String(contentsOfFile: certificate, encoding: .utf8)
        XCTAssertFalse(try SelfSignedCertificate.ensure(certificatePath: certificate, keyPath: key))
        XCTAssertEqual(try String(contentsOfFile: certificate, encoding: .utf8), original)
        let keyMode = try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? Int
        XCTAssertEqual(keyMode, 0o600)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: directory).sorted(), ["tls-cert.pem", "tls-key.pem"])
    }

    func testRefusesWhenOnlyOneFileExists() throws {
        let directory = TestCertificate.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certificate = directory + "/tls-cert.pem"
        XCTAssertTrue(FileManager.default.createFile(atPath: certificate, contents: Data("x".utf8)))
        XCTAssertThrowsError(
            try SelfSignedCertificate.ensure(certificatePath: certificate, keyPath: directory + "/k.pem")
        ) {
            XCTAssertTrue(String(describing: $0).contains("k.pem"), "\($0)")
        }
    }

    func testCertificateIsAP256CAForLocalhostThatVerifiesAgainstItself() throws {
        let path = TestCertificate.shared.certificate
        let text = try ChildProcess.run(["openssl", "x509", "-in", path, "-noout", "-text"])
        XCTAssertEqual(text.status, 0, text.stderr)
        for expected in [
            "Subject: CN = ActivityRelay local CA", "Issuer: CN = ActivityRelay local CA", "ASN1 OID: prime256v1",
            "CA:TRUE", "DNS:localhost, IP Address:127.0.0.1", "Certificate Sign", "TLS Web Server Authentication",
        ] {
            XCTAssertTrue(text.stdout.contains(expected), "missing \(expected) in\n\(text.stdout)")
        }
        let verify = try ChildProcess.run(["openssl", "verify", "-CAfile", path, "-purpose", "sslserver", path])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        let dates = try ChildProcess.run(["openssl", "x509", "-in", path, "-noout", "-checkend", "\(9 * 365 * 86_400)"])
        XCTAssertEqual(dates.status, 0, "certificate should be valid for at least nine more years")
    }
}
