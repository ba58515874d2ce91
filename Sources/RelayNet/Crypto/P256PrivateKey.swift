import COpenSSL

/// An ECDSA P-256 private key, such as the `.p8` provider key Apple issues.
public struct P256PrivateKey: Sendable {
    let key: EVPKey

    /// A new random key.
    public init() throws(CryptoError) {
        let operation = "generate P-256 key"
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw CryptoError.openSSL(operation) }
        defer { EVP_PKEY_CTX_free(context) }
        var generated: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
            EVP_PKEY_generate(context, &generated) == 1, let generated
        else { throw CryptoError.openSSL(operation) }
        key = EVPKey(taking: generated)
    }

    /// Loads a key from PEM: PKCS#8 (`-----BEGIN PRIVATE KEY-----`, as in Apple's `.p8` files) or
    /// SEC1 (`-----BEGIN EC PRIVATE KEY-----`). Encrypted keys and other curves are refused.
    package init(pem: String) throws(CryptoError) {
        // The password callback refuses, so an encrypted key fails instead of prompting on a terminal.
        let operation = "load P-256 private key"
        let loaded = try PEM.reading(pem, operation) { bio in
            PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        key = EVPKey(taking: loaded)
        try key.requireP256(operation)
    }

    /// The key as unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), the `.p8` format.
    package func pemRepresentation() throws(CryptoError) -> String {
        try PEM.writing("write P-256 private key") { bio in
            PEM_write_bio_PKCS8PrivateKey(bio, key.pointer, nil, nil, 0, nil, nil)
        }
    }

    /// The matching public key.
    public var publicKey: P256PublicKey {
        get throws(CryptoError) { try P256PublicKey(privateKey: self) }
    }
}
