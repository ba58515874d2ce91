/// Why a response could not be read: a static reason and the offending text.
public struct HTTP1ResponseParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, as an open set of static reasons.
    package struct Reason: RawRepresentable, Hashable, Sendable {
        package let rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }

        /// The status line is not `HTTP/1.x NNN ...`.
        package static let badStatusLine = Reason(rawValue: "bad status line")
        /// A header line without a name and colon.
        package static let badHeader = Reason(rawValue: "bad header field")
        /// The head is over `Limits.maxHeadBytes` or `maxHeaderFields`.
        package static let headTooLarge = Reason(rawValue: "head too large")
        /// An unusable `content-length` or `transfer-encoding`.
        package static let badFraming = Reason(rawValue: "bad body framing")
        /// A malformed chunk size or chunk end.
        package static let badChunk = Reason(rawValue: "bad chunk")
        /// The connection ended before the response did.
        package static let truncated = Reason(rawValue: "truncated response")
        /// Bytes arrived after the response was complete.
        package static let trailingBytes = Reason(rawValue: "bytes after the response")
    }

    /// What was wrong.
    package let reason: Reason
    /// The offending value or a detail, bounded in length.
    package let detail: String

    /// An error for `reason` with `detail`.
    package init(_ reason: Reason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    public var description: String { "HTTP/1.1 response: \(reason.rawValue): \(detail)" }
}
