import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG (`RAND_bytes`).
package enum SecureRandom {
    /// Returns `count` random bytes; throws `TLSError` if the generator cannot be seeded.
    package static func bytes(_ count: Int) throws(TLSError) -> [UInt8] {
        guard count > 0 else { return [] }
        var output = [UInt8](repeating: 0, count: count)
        ERR_clear_error()
        let ok = output.withUnsafeMutableBufferPointer { buffer in
            var offset = 0
            while offset < buffer.count {  // RAND_bytes takes an Int32 length; fill in bounded steps.
                let step = min(buffer.count - offset, 1 << 20)
                guard RAND_bytes(buffer.baseAddress! + offset, Int32(step)) == 1 else { return false }
                offset += step
            }
            return true
        }
        guard ok else { throw TLSError.openSSL(operation: "RAND_bytes") }
        return output
    }
}
