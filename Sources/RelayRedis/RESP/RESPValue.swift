/// One RESP3 value, as Redis sends it (RESP2 replies are the subset without maps, sets, doubles,
/// booleans and pushes; RESP2's null bulk string and null array both read as `.null`).
///
/// https://github.com/redis/redis-specification/blob/master/protocol/RESP3.md
public enum RESPValue: Equatable, Sendable {
    /// `+OK`: a short status line.
    case simpleString(String)
    /// `-ERR ...` or `!<len>` (bulk error): the error text, starting with its code (`MOVED`, `NOSCRIPT`...).
    case error(String)
    /// `:42`.
    case integer(Int64)
    /// `$<len>`: binary-safe bytes.
    case bulkString([UInt8])
    /// `_`, or RESP2's `$-1` / `*-1`.
    case null
    /// `#t` / `#f`.
    case boolean(Bool)
    /// `,3.14` (also `inf`, `-inf`, `nan`).
    case double(Double)
    /// `(12345...`: an integer too large for 64 bits, as its decimal text.
    case bigNumber(String)
    /// `=<len>`: text with a three-letter format (`txt`, `mkd`).
    case verbatim(format: String, text: [UInt8])
    /// `*<n>`.
    case array([RESPValue])
    /// `%<n>`: key-value pairs in the order sent.
    case map([RESPPair])
    /// `~<n>`.
    case set([RESPValue])
    /// `><n>`: out-of-band data (pub/sub messages, invalidations), never a command's reply.
    case push([RESPValue])

    /// The value as text when it is a string of any kind (simple, bulk, verbatim).
    package var string: String? {
        switch self {
        case .simpleString(let text): text
        case .bulkString(let bytes): String(decoding: bytes, as: UTF8.self)
        case .verbatim(_, let text): String(decoding: text, as: UTF8.self)
        default: nil
        }
    }

    /// The value as an integer when it is one (or a string holding one, as RESP2 sends some numbers).
    package var integer: Int64? {
        switch self {
        case .integer(let value): value
        case .simpleString, .bulkString: string.flatMap { Int64($0) }
        default: nil
        }
    }

    /// The elements of an array, set or push; nil for anything else.
    package var elements: [RESPValue]? {
        switch self {
        case .array(let values), .set(let values), .push(let values): values
        default: nil
        }
    }

    /// The pairs of a map, or of a RESP2 array of alternating keys and values; nil otherwise.
    package var pairs: [RESPPair]? {
        switch self {
        case .map(let pairs): return pairs
        case .array(let values) where values.count % 2 == 0:
            return stride(from: 0, to: values.count, by: 2).map { RESPPair(key: values[$0], value: values[$0 + 1]) }
        default: return nil
        }
    }

    /// Looks up a map (or RESP2 key-value array) entry by its string key.
    package subscript(key: String) -> RESPValue? {
        pairs?.first { $0.key.string == key }?.value
    }
}

/// One entry of a RESP3 map.
public struct RESPPair: Equatable, Sendable {
    /// The entry's key.
    package var key: RESPValue
    /// The entry's value.
    package var value: RESPValue

    /// Pairs `key` with `value`.
    package init(key: RESPValue, value: RESPValue) {
        self.key = key
        self.value = value
    }
}
