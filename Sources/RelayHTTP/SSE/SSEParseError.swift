/// Why an event stream was abandoned: a peer sent a line or an event beyond the parser's limits.
public struct SSEParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A static, human-readable reason.
    package struct Reason: RawRepresentable, Hashable, Sendable {
        package let rawValue: String

        package init(rawValue: String) { self.rawValue = rawValue }

        /// A line longer than `SSEParser.maxLineBytes`.
        package static let lineTooLong = Reason(rawValue: "line too long")
        /// An event whose data exceeds `SSEParser.maxEventBytes`.
        package static let eventTooLarge = Reason(rawValue: "event too large")
    }

    /// What went wrong.
    package let reason: Reason
    /// The limit that was exceeded, in octets.
    package let limit: Int

    /// An error for `reason` at `limit`.
    package init(_ reason: Reason, limit: Int) {
        self.reason = reason
        self.limit = limit
    }

    public var description: String { "SSE: \(reason.rawValue) (limit \(limit) octets)" }
}
