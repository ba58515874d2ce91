import COpenSSL

/// PEM text in and out of OpenSSL through memory BIOs.
enum PEM {
    /// The largest PEM text accepted; a P-256 key is a few hundred bytes.
    static let maxLength = 64 * 1024

    /// Runs `body` with a read-only memory BIO over `text`.
    static func reading<T>(
        _ text: String, _ operation: String, _ body: (OpaquePointer) -> T?
    ) throws(CryptoError) -> T {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw CryptoError(operation: operation, message: "empty PEM text") }
        guard bytes.count <= maxLength else {
            throw CryptoError(operation: operation, message: "PEM text of \(bytes.count) bytes, at most \(maxLength)")
        }
        let result = bytes.withUnsafeBytes { raw -> T? in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
        guard let result else { throw CryptoError.openSSL(operation, fallback: "no usable PEM block") }
        return result
    }

    /// Runs `write` against a fresh memory BIO and returns what it wrote as text.
    static func writing(_ operation: String, _ write: (OpaquePointer) -> Int32) throws(CryptoError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw CryptoError.openSSL(operation) }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw CryptoError.openSSL(operation) }
        let pending = Int(BIO_ctrl_pending(bio))
        guard pending > 0, pending <= maxLength else {
            throw CryptoError.openSSL(operation, fallback: "nothing written")
        }
        var bytes = [UInt8](repeating: 0, count: pending)
        let read = BIO_read(bio, &bytes, Int32(pending))
        guard read == Int32(pending) else { throw CryptoError.openSSL(operation, fallback: "short read from memory") }
        return String(decoding: bytes, as: UTF8.self)
    }
}
