import COpenSSL
import RelayNet
import XCTest

/// Crypto failures must not leave reasons on OpenSSL's per-thread error queue, where a later
/// `SSL_get_error` on the same thread would mistake them for a TLS failure.
final class OpenSSLErrorQueueTests: XCTestCase {
    func testFailuresLeaveTheQueueEmpty() throws {
        ERR_clear_error()
        let publicKey = try P256PrivateKey().publicKey
        let steps: [(String, () -> Void)] = [
            ("load", { _ = try? P256PrivateKey(pem: ES256Fixtures.pythonPrivateKeyPEM) }),
            ("load P-384", { _ = try? P256PrivateKey(pem: ES256Fixtures.p384PrivateKeyPEM) }),
            ("load encrypted", { _ = try? P256PrivateKey(pem: ES256Fixtures.encryptedPrivateKeyPEM) }),
            (
                "load garbage",
                { _ = try? P256PublicKey(pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n") }
            ),
            (
                "bad signature",
                { _ = ES256.verify(signature: [UInt8](repeating: 1, count: 64), message: [1], key: publicKey) }
            ),
            ("bad DER", { _ = ES256.rawSignature(fromDER: [0x30, 0x01, 0x02]) }),
        ]
        for (name, step) in steps {
            step()
            XCTAssertEqual(ERR_peek_error(), 0, name)
        }
    }
}
