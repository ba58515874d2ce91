/// Why an event stream was abandoned: a peer sent a line or an event beyond the parser's limits.
public struct SSEParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A static, human-readable reason.
    public struct Reason: RawRepresentable, Hashable, Sendable {
        public let rawValue: String

        public init(rawValue: String) { self.rawValue = rawValue }

        /// A line longer than `SSEParser.maxLineBytes`.
        public static let lineTooLong = Reason(rawValue: "line too long")
        /// An event whose data exceeds `SSEParser.maxEventBytes`.
        public static let eventTooLarge = Reason(rawValue: "event too large")
    }

    /// What went wrong.
    public let reason: Reason
    /// The limit that was exceeded, in octets.
    public let limit: Int

    /// An error for `reason` at `limit`.
    public init(_ reason: Reason, limit: Int) {
        self.reason = reason
        self.limit = limit
    }

    public var description: String { "SSE: \(reason.rawValue) (limit \(limit) octets)" }
}
