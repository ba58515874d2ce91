import COpenSSL

/// An ECDSA P-256 public key, as configured for checking provider tokens.
///
/// Two keys are equal when their SubjectPublicKeyInfo encodings are.
public struct P256PublicKey: Sendable, Equatable {
    let key: EVPKey
    /// The SubjectPublicKeyInfo DER encoding.
    package let derRepresentation: [UInt8]

    /// Loads a key from SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`); other curves are refused.
    package init(pem: String) throws(CryptoError) {
        // The password callback refuses, so an encrypted key fails instead of prompting on a terminal.
        let operation = "load P-256 public key"
        let loaded = try PEM.reading(pem, operation) { bio in PEM_read_bio_PUBKEY(bio, nil, { _, _, _, _ in 0 }, nil) }
        key = EVPKey(taking: loaded)
        try key.requireP256(operation)
        derRepresentation = try key.publicKeyDER(operation)
    }

    /// The public half of `privateKey`.
    package init(privateKey: P256PrivateKey) throws(CryptoError) {
        let operation = "derive P-256 public key"
        let der = try privateKey.key.publicKeyDER(operation)
        let decoded = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let decoded else { throw CryptoError.openSSL(operation) }
        key = EVPKey(taking: decoded)
        derRepresentation = der
    }

    /// The key as SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    package func pemRepresentation() throws(CryptoError) -> String {
        try PEM.writing("write P-256 public key") { bio in PEM_write_bio_PUBKEY(bio, key.pointer) }
    }

    public static func == (lhs: P256PublicKey, rhs: P256PublicKey) -> Bool {
        lhs.derRepresentation == rhs.derRepresentation
    }
}
