import RelayNet
import XCTest

final class P256KeyTests: XCTestCase {
    func testGeneratedKeyRoundTripsThroughPKCS8PEM() throws {
        let key = try P256PrivateKey()
        let pem = try key.pemRepresentation()
        XCTAssertTrue(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"), pem)
        XCTAssertTrue(pem.hasSuffix("-----END PRIVATE KEY-----\n"), pem)
        let loaded = try P256PrivateKey(pem: pem)
        XCTAssertEqual(try loaded.publicKey, try key.publicKey)
        XCTAssertEqual(try loaded.pemRepresentation(), pem)
        XCTAssertNotEqual(try P256PrivateKey().publicKey, try key.publicKey)
    }

    func testPublicKeyRoundTripsThroughSPKIPEM() throws {
        let publicKey = try P256PrivateKey().publicKey
        let pem = try publicKey.pemRepresentation()
        XCTAssertTrue(pem.hasPrefix("-----BEGIN PUBLIC KEY-----\n"), pem)
        XCTAssertEqual(try P256PublicKey(pem: pem), publicKey)
        XCTAssertEqual(publicKey.derRepresentation.count, 91)  // SPKI of an uncompressed P-256 point
    }

    func testLoadsKeysMadeByOtherImplementations() throws {
        let python = try P256PrivateKey(pem: ES256Fixtures.pythonPrivateKeyPEM)
        XCTAssertEqual(try python.publicKey, try P256PublicKey(pem: ES256Fixtures.pythonPublicKeyPEM))
        let cli = try P256PrivateKey(pem: ES256Fixtures.cliPrivateKeyPEM)
        XCTAssertEqual(try cli.publicKey, try P256PublicKey(pem: ES256Fixtures.cliPublicKeyPEM))
        XCTAssertEqual(
            try P256PublicKey(pem: ES256Fixtures.pythonPublicKeyPEM).pemRepresentation(),
            ES256Fixtures.pythonPublicKeyPEM + "\n")
    }

    func testRefusesWhatIsNotAnUnencryptedP256Key() {
        let cases: [(String, String)] = [
            ("P-384", ES256Fixtures.p384PrivateKeyPEM),
            ("encrypted", ES256Fixtures.encryptedPrivateKeyPEM),
            ("public key", ES256Fixtures.pythonPublicKeyPEM),
            ("empty", ""),
            ("garbage", "-----BEGIN PRIVATE KEY-----\nnot base64\n-----END PRIVATE KEY-----\n"),
            ("truncated", String(ES256Fixtures.pythonPrivateKeyPEM.prefix(120))),
            ("oversized", String(repeating: "A", count: 70_000)),
        ]
        for (name, pem) in cases {
            XCTAssertThrowsError(try P256PrivateKey(pem: pem), name) { error in
                XCTAssertEqual((error as? CryptoError)?.operation, "load P-256 private key", name)
            }
        }
        XCTAssertThrowsError(try P256PublicKey(pem: ES256Fixtures.pythonPrivateKeyPEM))
        XCTAssertThrowsError(try P256PublicKey(pem: "")) { error in
            XCTAssertEqual((error as? CryptoError)?.message, "empty PEM text")
        }
    }

    func testP384RefusalNamesTheCurve() {
        XCTAssertThrowsError(try P256PrivateKey(pem: ES256Fixtures.p384PrivateKeyPEM)) { error in
            XCTAssertEqual((error as? CryptoError)?.message, "curve secp384r1, expected P-256 (prime256v1)")
        }
    }
}
