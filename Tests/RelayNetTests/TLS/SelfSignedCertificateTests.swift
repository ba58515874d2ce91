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

    func testCertificateIsAP256LeafForLocalhostThatVerifiesAgainstItself() throws {
        let path = TestCertificate.shared.certificate
        let text = try ChildProcess.run(["openssl", "x509", "-in", path, "-noout", "-text"])
        XCTAssertEqual(text.status, 0, text.stderr)
        for expected in [
            "Subject: CN = ActivityRelay localhost", "Issuer: CN = ActivityRelay localhost", "ASN1 OID: prime256v1",
            "CA:FALSE", "DNS:localhost, IP Address:127.0.0.1", "Digital Signature", "TLS Web Server Authentication",
        ] {
            XCTAssertTrue(text.stdout.contains(expected), "missing \(expected) in\n\(text.stdout)")
        }
        XCTAssertFalse(text.stdout.contains("Certificate Sign"), text.stdout)
        let verify = try ChildProcess.run(["openssl", "verify", "-CAfile", path, "-purpose", "sslserver", path])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        let dates = try ChildProcess.run(["openssl", "x509", "-in", path, "-noout", "-checkend", "\(9 * 365 * 86_400)"])
        XCTAssertEqual(dates.status, 0, "certificate should be valid for at least nine more years")
    }

    /// The attack: with the server key, sign a certificate for another host and check it against the
    /// file clients trust. A leaf cannot be an issuer, so it does not verify.
    func testServerKeyCannotMakeTheCertificateVouchForAnotherHost() throws {
        let directory = TestCertificate.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (certificate, key) = (directory + "/tls-cert.pem", directory + "/tls-key.pem")
        try SelfSignedCertificate.ensure(certificatePath: certificate, keyPath: key)
        XCTAssertFalse(try forgeAndVerify(in: directory, issuer: certificate, issuerKey: key))
    }

    /// A data directory holding the CA form (common name `ActivityRelay local CA`) gets a new key and
    /// leaf; a CA with any other name (the operator's own) is left alone.
    func testGeneratedCAFromAnOlderStartIsReplacedByALeaf() throws {
        let directory = TestCertificate.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (certificate, key) = (directory + "/tls-cert.pem", directory + "/tls-key.pem")
        try makeCA(commonName: "ActivityRelay local CA", certificate: certificate, key: key)
        XCTAssertTrue(try forgeAndVerify(in: directory, issuer: certificate, issuerKey: key), "the CA form vouches")
        let oldKey = try String(contentsOfFile: key, encoding: .utf8)
        XCTAssertTrue(try SelfSignedCertificate.ensure(certificatePath: certificate, keyPath: key))
        XCTAssertNotEqual(try String(contentsOfFile: key, encoding: .utf8), oldKey)
        XCTAssertFalse(try forgeAndVerify(in: directory, issuer: certificate, issuerKey: key))
        XCTAssertFalse(try SelfSignedCertificate.ensure(certificatePath: certificate, keyPath: key))

        try makeCA(commonName: "Example Corp CA", certificate: certificate, key: key)
        let own = try String(contentsOfFile: certificate, encoding: .utf8)
        XCTAssertFalse(try SelfSignedCertificate.ensure(certificatePath: certificate, keyPath: key))
        XCTAssertEqual(try String(contentsOfFile: certificate, encoding: .utf8), own)
    }

    private func makeCA(commonName: String, certificate: String, key: String) throws {
        let made = try ChildProcess.run([
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=\(commonName)",
            "-addext", "basicConstraints=critical,CA:TRUE,pathlen:0",
            "-addext", "keyUsage=critical,digitalSignature,keyCertSign,cRLSign",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
    }

    /// Signs a `www.example.com` certificate with `issuerKey` and reports whether it verifies with
    /// `issuer` as the only trusted certificate.
    private func forgeAndVerify(in directory: String, issuer: String, issuerKey: String) throws -> Bool {
        let (request, forged) = (directory + "/forged.csr", directory + "/forged.pem")
        let made = try ChildProcess.run([
            "openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", directory + "/forged-key.pem", "-out", request, "-subj", "/CN=www.example.com",
            "-addext", "subjectAltName=DNS:www.example.com",
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        let signed = try ChildProcess.run([
            "openssl", "x509", "-req", "-in", request, "-CA", issuer, "-CAkey", issuerKey, "-out", forged,
            "-days", "1", "-copy_extensions", "copy",
        ])
        XCTAssertEqual(signed.status, 0, signed.stderr)
        let verify = try ChildProcess.run([
            "openssl", "verify", "-CAfile", issuer, "-purpose", "sslserver", "-verify_hostname", "www.example.com",
            forged,
        ])
        return verify.status == 0
    }
}
