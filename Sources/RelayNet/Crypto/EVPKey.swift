import COpenSSL

/// Owns one OpenSSL `EVP_PKEY` and frees it.
///
/// The key is never changed after creation, and OpenSSL 3 allows one key to be used for signing
/// and verifying on several threads at once, hence `@unchecked Sendable`.
final class EVPKey: @unchecked Sendable {  // immutable after init; OpenSSL 3 keys are thread-safe to use
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) { self.pointer = pointer }

    deinit { EVP_PKEY_free(pointer) }

    /// Fails unless the key is an EC key on P-256 (`prime256v1`).
    func requireP256(_ operation: String) throws(CryptoError) {
        guard EVP_PKEY_get_base_id(pointer) == EVP_PKEY_EC else {
            throw CryptoError(operation: operation, message: "not an EC key (type \(EVP_PKEY_get_base_id(pointer)))")
        }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(pointer, &name, name.count, &length) == 1 else {
            throw CryptoError.openSSL(operation, fallback: "EC key without a named curve")
        }
        let curve = CryptoError.text(name)
        guard curve == "prime256v1" else {
            throw CryptoError(operation: operation, message: "curve \(curve), expected P-256 (prime256v1)")
        }
    }

    /// The SubjectPublicKeyInfo DER of the key's public half.
    func publicKeyDER(_ operation: String) throws(CryptoError) -> [UInt8] {
        let length = i2d_PUBKEY(pointer, nil)
        guard length > 0 else { throw CryptoError.openSSL(operation) }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(pointer, &cursor)
        }
        guard written == length else { throw CryptoError.openSSL(operation) }
        return der
    }
}
