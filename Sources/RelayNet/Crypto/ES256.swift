import COpenSSL

/// ECDSA over P-256 with SHA-256 (JWS `ES256`), with signatures in the raw 64-byte `r || s` form
/// that JWS uses rather than OpenSSL's DER.
package enum ES256 {
    /// Bytes in a raw signature: 32 for `r`, 32 for `s`.
    package static let signatureByteCount = 64

    /// Signs SHA-256(`message`) with `key`; returns `r || s`, 64 bytes.
    package static func sign(_ message: [UInt8], key: P256PrivateKey) throws(CryptoError) -> [UInt8] {
        let operation = "ES256 sign"
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.openSSL(operation) }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key.key.pointer) == 1 else {
            throw CryptoError.openSSL(operation)
        }
        var der = [UInt8](repeating: 0, count: 80)  // a P-256 DER signature is at most 72 bytes
        var length = der.count
        let ok = withBytes(message) { pointer, count in EVP_DigestSign(context, &der, &length, pointer, count) }
        guard ok == 1 else { throw CryptoError.openSSL(operation) }
        guard let raw = rawSignature(fromDER: Array(der.prefix(length))) else {
            throw CryptoError(operation: operation, message: "OpenSSL produced a signature that is not P-256 DER")
        }
        return raw
    }

    /// True when `signature` (64 bytes, `r || s`) is `key`'s signature of SHA-256(`message`).
    /// Any other length, or `r`/`s` out of range, is false. High-S signatures are accepted.
    package static func verify(signature: [UInt8], message: [UInt8], key: P256PublicKey) -> Bool {
        guard let der = derSignature(fromRaw: signature) else { return false }
        guard let context = EVP_MD_CTX_new() else {
            ERR_clear_error()
            return false
        }
        defer {
            EVP_MD_CTX_free(context)
            // A bad signature leaves reasons on the queue; clear them so no later TLS call sees them.
            ERR_clear_error()
        }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key.key.pointer) == 1 else { return false }
        return withBytes(message) { pointer, count in EVP_DigestVerify(context, der, der.count, pointer, count) } == 1
    }

    // MARK: - Signature encodings

    /// The raw `r || s` form (64 bytes) of a DER `ECDSA-Sig-Value`, or nil when `der` is not one
    /// with `r` and `s` fitting in 32 bytes each.
    package static func rawSignature(fromDER der: [UInt8]) -> [UInt8]? {
        let decoded = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature = decoded else {
            ERR_clear_error()
            return nil
        }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        var raw = [UInt8](repeating: 0, count: signatureByteCount)
        let written = raw.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress, let r, let s else { return false }
            return BN_bn2binpad(r, base, 32) == 32 && BN_bn2binpad(s, base + 32, 32) == 32
        }
        return written ? raw : nil
    }

    /// The DER `ECDSA-Sig-Value` of a raw 64-byte `r || s`, or nil for any other length.
    package static func derSignature(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == signatureByteCount, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let set = raw.withUnsafeBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress,
                let r = BN_bin2bn(base, 32, nil)
            else { return false }
            guard let s = BN_bin2bn(base + 32, 32, nil) else {
                BN_free(r)
                return false
            }
            // On success ECDSA_SIG_set0 takes ownership of both numbers.
            guard ECDSA_SIG_set0(signature, r, s) == 1 else {
                BN_free(r)
                BN_free(s)
                return false
            }
            return true
        }
        guard set else {
            ERR_clear_error()
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else {
            ERR_clear_error()
            return nil
        }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }

    /// Calls `body` with a pointer to `bytes` that is never NULL, even for an empty message.
    private static func withBytes<T>(_ bytes: [UInt8], _ body: (UnsafePointer<UInt8>, Int) -> T) -> T {
        bytes.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress { return body(base, buffer.count) }
            var placeholder: UInt8 = 0
            return body(&placeholder, 0)
        }
    }
}
