import Foundation
import RelayNet

/// A self-signed certificate generated once per test run into a temporary directory, removed
/// when the test process exits.
enum TestCertificate {
    /// The directory of the shared certificate.
    private static let directory = makeTemporaryDirectory()

    /// Paths of the shared certificate (also the CA file) and key.
    static let shared: (certificate: String, key: String) = {
        let certificate = directory + "/tls-cert.pem"
        let key = directory + "/tls-key.pem"
        do {
            try SelfSignedCertificate.ensure(certificatePath: certificate, keyPath: key)
        } catch {
            preconditionFailure("test certificate generation failed: \(error)")
        }
        // Every test class shares it, so no test's tearDown can remove it.
        atexit { try? FileManager.default.removeItem(atPath: TestCertificate.directory) }
        return (certificate, key)
    }()

    /// A TLS context over the shared certificate with the default ALPN list.
    static func context() throws -> TLSContext {
        try TLSContext(TLSConfiguration(certificateChainPath: shared.certificate, privateKeyPath: shared.key))
    }

    /// Creates a fresh empty directory under the system temporary directory.
    static func makeTemporaryDirectory() -> String {
        let path = NSTemporaryDirectory() + "relaynet-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
