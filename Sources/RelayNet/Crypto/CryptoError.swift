import COpenSSL

/// A failed cryptographic operation: what was being done and why, with OpenSSL's reason when
/// OpenSSL reported one.
public struct CryptoError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What was being done, e.g. `"load private key"` or `"sign"`.
    package var operation: String
    /// Why it failed.
    package var message: String

    /// A failure of `operation` for the reason `message`.
    package init(operation: String, message: String) {
        self.operation = operation
        self.message = message
    }

    public var description: String { "\(operation) failed: \(message)" }

    /// A failure of `operation` explained by OpenSSL's error queue (or by `fallback` when the
    /// queue is empty). Drains the queue, so the failure cannot leak into a later TLS call on
    /// this thread, where `SSL_get_error` would read it.
    static func openSSL(_ operation: String, fallback: String = "OpenSSL reported no reason") -> CryptoError {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            if reasons.count < 4 { reasons.append(text(buffer)) }
        }
        return CryptoError(operation: operation, message: reasons.isEmpty ? fallback : reasons.joined(separator: "; "))
    }

    /// The text in a NUL-terminated C buffer (all of it when there is no NUL).
    static func text(_ buffer: [CChar]) -> String {
        let end = buffer.firstIndex(of: 0) ?? buffer.endIndex
        return String(decoding: buffer[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
