/// Why a JSON document was rejected, and where.
///
/// `offset` is the zero-based byte offset of the offending byte (or the input's length when the
/// input ended too early). `message` names what was expected and what was found; `description`
/// adds the location, e.g. `expected ':' after object key, found '=' at byte 17`.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The broad class of a parse failure, for callers that branch on it; `message` has the detail.
    package enum Kind: Sendable, Hashable {
        /// The input ended before the document was complete.
        case unexpectedEnd
        /// A byte that cannot start or continue the value at this point.
        case unexpectedByte
        /// A number that breaks the grammar: leading zero, missing digits.
        case invalidNumber
        /// A well-formed number whose magnitude does not fit a finite Double.
        case numberOutOfRange
        /// A raw control character or an unknown escape inside a string.
        case invalidString
        /// A `\u` escape without four hex digits, or a surrogate without its pair.
        case invalidUnicodeEscape
        /// Bytes inside a string that are not well-formed UTF-8.
        case invalidUTF8
        /// Arrays and objects nested deeper than the parser's limit.
        case tooDeep
        /// Something other than whitespace after the document's one value.
        case trailingData
    }

    /// The broad class of the failure.
    package let kind: Kind
    /// Zero-based byte offset of the offending byte, or the input length for a premature end.
    package let offset: Int
    /// What was expected and what was found, without the location.
    package let message: String

    /// Creates an error; the parser builds these, tests may too.
    package init(kind: Kind, offset: Int, message: String) {
        self.kind = kind
        self.offset = offset
        self.message = message
    }

    /// The message with its location, ready for a log line or an API error body.
    public var description: String { "\(message) at byte \(offset)" }

    /// Where `offset` falls in `input` (the bytes that were parsed): 1-based line and column, the
    /// column counted in characters (UTF-8 continuation bytes do not count).
    package func location(in input: [UInt8]) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for byte in input.prefix(max(0, offset)) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }

    /// The message at its line and column in `input`, for a file a person wrote.
    package func description(in input: [UInt8]) -> String {
        let (line, column) = location(in: input)
        return "line \(line), column \(column): \(message)"
    }
}

extension JSONParseError {
    /// How a byte reads in a message: `'x'` for printable ASCII, `0x0A` otherwise.
    static func describe(_ byte: UInt8) -> String {
        if byte > 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        let digits = String(byte, radix: 16, uppercase: true)
        return byte < 0x10 ? "0x0\(digits)" : "0x\(digits)"
    }

    /// An error for a spot where `expected` did not follow: a premature end when `found` is nil.
    static func expected(_ expected: String, found: UInt8?, at offset: Int, kind: Kind = .unexpectedByte)
        -> JSONParseError
    {
        guard let found else {
            return JSONParseError(
                kind: .unexpectedEnd, offset: offset, message: "expected \(expected), found end of input")
        }
        return JSONParseError(kind: kind, offset: offset, message: "expected \(expected), found \(describe(found))")
    }
}
