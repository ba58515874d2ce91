import Foundation
import RelayNet
import XCTest

final class JWTTests: XCTestCase {
    func testVerifiesATokenSignedByPython() throws {
        let token = try CompactJWT(parsing: ES256Fixtures.pythonJWT)
        XCTAssertEqual(String(decoding: token.header, as: UTF8.self), #"{"alg":"ES256","kid":"PYKEY00001"}"#)
        XCTAssertEqual(String(decoding: token.payload, as: UTF8.self), #"{"iss":"PYTEAM0001","iat":1767225600}"#)
        XCTAssertTrue(token.hasValidES256Signature(key: try P256PublicKey(pem: ES256Fixtures.pythonPublicKeyPEM)))
        XCTAssertFalse(token.hasValidES256Signature(key: try P256PublicKey(pem: ES256Fixtures.cliPublicKeyPEM)))
    }

    func testTamperedTokenFails() throws {
        let parts = ES256Fixtures.pythonJWT.split(separator: ".")
        let otherClaims = Base64URL.encode(Array(#"{"iss":"PYTEAM0002","iat":1767225600}"#.utf8))
        let forged = try CompactJWT(parsing: "\(parts[0]).\(otherClaims).\(parts[2])")
        XCTAssertFalse(forged.hasValidES256Signature(key: try P256PublicKey(pem: ES256Fixtures.pythonPublicKeyPEM)))
    }

    func testProviderTokenHasApplesShape() throws {
        let key = try P256PrivateKey()
        let text = try JWTSigner.makeProviderToken(
            teamID: "DEVTEAM000", keyID: "DEVKEY0000", issuedAt: 1_767_225_600, key: key)
        XCTAssertFalse(text.contains("="))
        let token = try CompactJWT(parsing: text)
        XCTAssertEqual(String(decoding: token.header, as: UTF8.self), #"{"alg":"ES256","kid":"DEVKEY0000"}"#)
        XCTAssertEqual(String(decoding: token.payload, as: UTF8.self), #"{"iss":"DEVTEAM000","iat":1767225600}"#)
        XCTAssertEqual(token.signature.count, 64)
        XCTAssertTrue(token.hasValidES256Signature(key: try key.publicKey))
    }

    func testProviderTokenEscapesItsStrings() throws {
        let text = try JWTSigner.makeProviderToken(
            teamID: "T\n\u{1}", keyID: #"a"b\c"#, issuedAt: -5, key: try P256PrivateKey())
        let token = try CompactJWT(parsing: text)
        XCTAssertEqual(String(decoding: token.header, as: UTF8.self), #"{"alg":"ES256","kid":"a\"b\\c"}"#)
        XCTAssertEqual(String(decoding: token.payload, as: UTF8.self), #"{"iss":"T\n\u0001","iat":-5}"#)
    }

    func testMalformedTokensAreRefused() {
        let cases: [(String, String)] = [
            ("a.b", "2 parts"),
            ("a.b.c.d", "4 parts"),
            ("", "1 parts"),
            ("e30.e30.a=", "signature"),
            ("e30.e3 0.AA", "payload"),
            ("e.e30.AA", "header"),
            (String(repeating: "A", count: 9_000), "at most"),
        ]
        for (text, reason) in cases {
            XCTAssertThrowsError(try CompactJWT(parsing: text), reason) { error in
                XCTAssertTrue((error as? JWTError)?.reason.contains(reason) ?? false, "\(reason): \(error)")
            }
        }
    }

    /// The system's `openssl` command, an independent verifier, accepts our token's signature.
    func testOpenSSLCommandLineVerifiesOurToken() throws {
        let openssl = "/usr/bin/openssl"
        guard FileManager.default.isExecutableFile(atPath: openssl) else { throw XCTSkip("no \(openssl)") }
        let key = try P256PrivateKey()
        let token = try CompactJWT(
            parsing: try JWTSigner.makeProviderToken(teamID: "DEVTEAM000", keyID: "DEVKEY0000", issuedAt: 1, key: key))
        let directory = NSTemporaryDirectory() + "relay-jwt-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data(token.signingInput).write(to: URL(fileURLWithPath: directory + "/input"))
        try Data(try XCTUnwrap(ES256.derSignature(fromRaw: token.signature))).write(
            to: URL(fileURLWithPath: directory + "/sig.der"))
        try Data(try key.publicKey.pemRepresentation().utf8).write(to: URL(fileURLWithPath: directory + "/pub.pem"))

        func verify(_ input: String) throws -> (Int32, String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: openssl)
            process.arguments = [
                "dgst", "-sha256", "-verify", directory + "/pub.pem", "-signature", directory + "/sig.der", input,
            ]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, text)
        }
        let (status, text) = try verify(directory + "/input")
        XCTAssertEqual(status, 0, text)
        XCTAssertTrue(text.contains("Verified OK"), text)

        try Data("tampered".utf8).write(to: URL(fileURLWithPath: directory + "/other"))
        XCTAssertNotEqual(try verify(directory + "/other").0, 0)
    }
}
