// MARK: - Reading an object member by member

extension JSONParser {
    /// Reads the key at `index` (an opening quote) when it has no escapes, and the `:` after it.
    /// Returns the key's bytes as a range of `bytes`, with `index` at the member's value; nil
    /// (with `index` anywhere) for a key with an escape or anything that is not a well-formed
    /// `"key":`. Callers that get nil fall back to `parseValue`, which reports the exact error.
    mutating func plainKey() -> Range<Int>? {
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
    mutating func memberSeparator() -> Bool? {
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

    /// The key bytes in `range` as a `String` (they were checked to be well-formed UTF-8).
    func keyString(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Whether only whitespace is left.
    mutating func atEndOfDocument() -> Bool {
        skipWhitespace()
        return index == bytes.count
    }
}
