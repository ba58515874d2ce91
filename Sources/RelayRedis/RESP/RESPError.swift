/// Why bytes from a Redis server could not be read as RESP: each case carries the offending byte
/// offset (from the start of the value being parsed) and a fixed reason. The connection that saw
/// one is closed: after a framing error nothing later on the stream can be trusted.
public struct RESPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What was wrong.
    package var reason: Reason
    /// Where in the value the problem was found.
    package var offset: Int

    /// The fixed reasons, one per rule the parser enforces.
    package enum Reason: String, Sendable {
        case unknownType = "unknown RESP type byte"
        case badLineEnding = "line not ended by CRLF"
        case lineTooLong = "header line longer than the limit"
        case badInteger = "malformed integer"
        case badLength = "negative or malformed length"
        case bulkTooLarge = "bulk string longer than the limit"
        case aggregateTooLarge = "aggregate with more elements than the limit"
        case tooDeep = "aggregates nested deeper than the limit"
        case badDouble = "malformed double"
        case badBoolean = "boolean neither t nor f"
        case badVerbatim = "verbatim string without a 3-byte format and colon"
        case badNull = "null with a payload"
        case bufferTooLarge = "unparsed input beyond the limit"
    }

    public var description: String { "RESP: \(reason.rawValue) at byte \(offset)" }
}
