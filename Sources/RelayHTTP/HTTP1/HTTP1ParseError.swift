/// Why a request could not be parsed, with the status the server should answer before closing.
///
/// After an error the parser stays failed: the connection's framing can no longer be trusted, so the
/// server answers `status` with `Connection: close` and closes.
public struct HTTP1ParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A static, human-readable reason. Open so that callers can match on it and print it.
    package struct Reason: RawRepresentable, Hashable, Sendable {
        package let rawValue: String

        package init(rawValue: String) { self.rawValue = rawValue }

        /// The request line is not `method SP target SP HTTP/x.y`.
        package static let malformedRequestLine = Reason(rawValue: "malformed request line")
        /// The request target is not origin-, absolute- or asterisk-form, or has invalid octets.
        package static let invalidTarget = Reason(rawValue: "invalid request target")
        /// The request line is longer than the header limit.
        package static let targetTooLong = Reason(rawValue: "request line too long")
        /// The version is well formed but not HTTP/1.x.
        package static let unsupportedVersion = Reason(rawValue: "HTTP version not supported")
        /// A field line has no colon, an invalid name, or whitespace before the colon.
        package static let malformedField = Reason(rawValue: "malformed header field")
        /// A field value holds a control character (including a bare CR).
        package static let invalidFieldValue = Reason(rawValue: "invalid octet in header field value")
        /// A line starts with whitespace: obsolete line folding, rejected (RFC 9112 §5.2).
        package static let obsoleteLineFolding = Reason(rawValue: "obsolete line folding")
        /// A bare CR outside a field value.
        package static let bareCR = Reason(rawValue: "bare CR")
        /// The header section exceeds the byte or field-count limit.
        package static let headerSectionTooLarge = Reason(rawValue: "header section too large")
        /// An HTTP/1.1 request without Host, or any request with more than one.
        package static let invalidHost = Reason(rawValue: "missing or repeated Host")
        /// Content-Length is not a decimal number, or several values disagree.
        package static let invalidContentLength = Reason(rawValue: "invalid Content-Length")
        /// Both Content-Length and Transfer-Encoding (a request smuggling vector).
        package static let contentLengthWithTransferEncoding = Reason(
            rawValue: "both Content-Length and Transfer-Encoding")
        /// Transfer-Encoding whose final coding is not chunked, or chunked twice, or in HTTP/1.0.
        package static let invalidTransferEncoding = Reason(rawValue: "invalid Transfer-Encoding")
        /// A transfer coding other than chunked.
        package static let unsupportedTransferEncoding = Reason(rawValue: "unsupported transfer coding")
        /// The body exceeds the limit.
        package static let bodyTooLarge = Reason(rawValue: "body too large")
        /// A chunk-size line, chunk extension or chunk delimiter is malformed.
        package static let malformedChunk = Reason(rawValue: "malformed chunked body")
    }

    /// The status code to answer with: 400, 413, 414, 431, 501 or 505.
    package let status: Int
    /// What went wrong.
    package let reason: Reason
    /// The offending text, cut to 64 octets (a header name, a value, a version), or empty.
    package let value: String

    /// An error answered with `status`, for `reason`, about `value`.
    package init(status: Int, _ reason: Reason, value: String = "") {
        self.status = status
        self.reason = reason
        self.value = value
    }

    /// An error whose offending value is the given bytes, shown as UTF-8 and cut to 64 octets.
    init(status: Int, _ reason: Reason, bytes: ArraySlice<UInt8>) {
        self.init(status: status, reason, value: String(decoding: bytes.prefix(64), as: UTF8.self))
    }

    public var description: String {
        value.isEmpty ? "\(status): \(reason.rawValue)" : "\(status): \(reason.rawValue) (\(value))"
    }
}
