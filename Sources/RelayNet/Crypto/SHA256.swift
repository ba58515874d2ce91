import COpenSSL

/// SHA-256, through OpenSSL.
package enum SHA256 {
    /// The 32-byte digest length.
    package static let byteCount = 32

    /// The SHA-256 digest of `bytes`.
    package static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { output in
                // EVP_Digest accepts a NULL pointer for empty input.
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        // SHA-256 over memory cannot fail short of allocation failure inside OpenSSL, which the
        // rest of the process would not survive either; an unexpected failure still yields a
        // digest of zeros that can match nothing, never a crash.
        if ok != 1 || length != UInt32(byteCount) {
            ERR_clear_error()
            return [UInt8](repeating: 0, count: byteCount)
        }
        return digest
    }
}
