import COpenSSL

/// A TLS failure: what RelayNet was doing and OpenSSL's own error text for it.
public struct TLSError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The operation that failed, e.g. `"SSL_do_handshake"` or `"load certificate chain /path"`.
    package var operation: String
    /// OpenSSL's error strings (its thread-local queue, oldest first, joined by "; "), or our own reason.
    package var reason: String

    /// Creates an error from an operation name and a reason.
    package init(operation: String, reason: String) {
        self.operation = operation
        self.reason = reason
    }

    public var description: String { "\(operation) failed: \(reason)" }

    /// Drains OpenSSL's error queue into a `TLSError` for `operation`.
    static func openSSL(operation: String, fallback: String = "no OpenSSL error queued") -> TLSError {
        TLSError(operation: operation, reason: drainErrorQueue() ?? fallback)
    }

    /// Pops every queued OpenSSL error (they are thread-local) and renders them; nil when empty.
    static func drainErrorQueue() -> String? {
        var messages: [String] = []
        var buffer = [CChar](repeating: 0, count: 256)
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            if messages.count < 8 {  // A hostile peer cannot make the message unbounded.
                ERR_error_string_n(code, &buffer, buffer.count)
                messages.append(buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
            }
        }
        return messages.isEmpty ? nil : messages.joined(separator: "; ")
    }
}
