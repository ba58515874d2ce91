// MARK: - Reading an object member by member

/// For a caller that reads the usual shape of a document itself (the provider API's push body)
/// and builds values only for the members it keeps:
///
///     guard var more = try parser.beginObject(depth: 0) else { ... }
///     while more {
///         guard let key = parser.plainKey() else { ... }
///         let value = try parser.parseValue(depth: 1)
///         guard let next = parser.memberSeparator() else { ... }
///         more = next
///     }
///     guard parser.atEndOfDocument() else { ... }
///
/// A nil answer means "not the usual shape here", never an error: the caller then parses the
/// whole document with `JSONValue(parsing:)`, which reports the exact error if there is one.
extension JSONParser {
    /// Consumes the `{` that opens an object `depth` containers deep (whitespace before it
    /// skipped) and the whitespace after it: true when a member follows, false when the object is
    /// empty (its `}` consumed too). Nil, with nothing but whitespace consumed, when the value
    /// there is not an object; throws when the object nests too deep.
    package mutating func beginObject(depth: Int) throws(JSONParseError) -> Bool? {
        skipWhitespace()
        guard current == UInt8(ascii: "{") else { return nil }
        try enter(depth: depth)
        guard current == UInt8(ascii: "}") else { return true }
        index += 1
        return false
    }

    /// Reads the key at `index` (an opening quote) when it has no escapes, and the `:` after it.
    /// Returns the key's bytes as a range of `bytes`, with `index` at the member's value; nil
    /// (with `index` anywhere) for a key with an escape or anything that is not a well-formed
    /// `"key":`. Callers that get nil fall back to `parseValue`, which reports the exact error.
    package mutating func plainKey() -> Range<Int>? {
        guard current == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        var i = plainWords(from: start)
        var seen: UInt8 = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            seen |= byte
            i += 1
        }
        guard i < bytes.count else { return nil }
        if seen & 0x80 != 0, Self.firstInvalidUTF8(in: bytes, range: start..<i) != nil { return nil }
        index = i + 1
        skipWhitespace()
        guard current == UInt8(ascii: ":") else { return nil }
        index += 1
        skipWhitespace()
        return start..<i
    }

    /// The first byte at or after `start` that is a quote, backslash, control or non-ASCII byte,
    /// found eight bytes at a time; or where fewer than eight bytes are left. Bytes before it are
    /// plain ASCII and need no look of their own.
    @inline(__always)
    func plainWords(from start: Int) -> Int {
        var i = start
        guard let base = bytes.baseAddress else { return i }
        while i + 8 <= bytes.count {
            let mask = JSONWriter.lookMask(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
            if mask != 0 { return i + mask.trailingZeroBitCount / 8 }
            i += 8
        }
        return i
    }

    /// After a member's value: consumes `,` (true, more members follow) or `}` (false, the object
    /// ended), with the whitespace around them; nil for anything else.
    package mutating func memberSeparator() -> Bool? {
        skipWhitespace()
        switch current {
        case UInt8(ascii: ","):
            index += 1
            skipWhitespace()
            return true
        case UInt8(ascii: "}"):
            index += 1
            return false
        default:
            return nil
        }
    }

    /// The bytes of the key `plainKey` found at `range`.
    package func keyBytes(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[range])
    }

    /// The key `plainKey` found at `range` as a `String` (its bytes were checked to be well-formed UTF-8).
    package func keyString(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Whether only whitespace is left.
    package mutating func atEndOfDocument() -> Bool {
        skipWhitespace()
        return index == bytes.count
    }
}
