/// Bounds on what one RESP value may hold, so a hostile or broken server costs an error, not memory.
///
/// The defaults sit above anything the relay's own commands receive and well below Redis's own
/// 512 MB bulk limit.
public struct RESPLimits: Sendable, Equatable {
    /// Longest bulk string, bulk error or verbatim string, in bytes.
    public var maxBulkBytes: Int = 64 << 20
    /// Most elements in one array, set, push or map (a map counts its pairs).
    public var maxAggregateCount: Int = 1 << 20
    /// Deepest nesting of aggregates.
    package var maxDepth: Int = 32
    /// Longest header or simple line (type byte through CRLF).
    package var maxLineBytes: Int = 64 << 10
    /// Most bytes held unparsed at once (one value in flight plus what follows it).
    package var maxBufferedBytes: Int = 128 << 20

    /// The defaults.
    public init() {}
}
