import RelayJSON

/// The size rule's measure: how many bytes a value takes as compact JSON.
///
/// Counts the bytes `JSONValue.serialized()` writes (no whitespace; `"` `\` and the five short
/// control escapes as two bytes, other control characters as `\u00XX`, U+2028 and U+2029 as
/// `\u2028` and `\u2029`, everything else as its UTF-8 bytes; doubles as `JSONWriter` spells
/// them) without building the text, in one pass over the parsed value: a push's content state is
/// measured for every push.
enum ActivityDataSize {
    /// Bytes of `value` as compact JSON.
    static func bytes(of value: JSONValue) -> Int {
        switch value {
        case .null: return 4
        case .bool(let flag): return flag ? 4 : 5
        case .int(let number): return digits(number)
        case .double(let number): return JSONWriter.doubleLength(number)
        case .string(let text): return stringBytes(text)
        case .array(let elements):
            var total = 2 + max(0, elements.count - 1)
            for element in elements { total += bytes(of: element) }
            return total
        case .object(let members):
            var total = 2 + max(0, members.count - 1)
            for (key, member) in members { total += stringBytes(key) + 1 + bytes(of: member) }
            return total
        }
    }

    /// Characters of a decimal integer, sign included.
    private static func digits(_ number: Int64) -> Int {
        var count = number < 0 ? 2 : 1
        var rest = number.magnitude / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        return count
    }

    /// Bytes of a quoted, escaped string. Eight bytes at a time: a word with no control
    /// character, `"`, `\` or non-ASCII byte adds nothing; only other words are looked at byte by
    /// byte.
    static func stringBytes(_ text: String) -> Int {
        APNsASCII.withBytes(text) { bytes in
            var total = 2 + bytes.count
            var index = 0
            if let base = bytes.baseAddress {
                let raw = UnsafeRawPointer(base)
                while index + 8 <= bytes.count {
                    if JSONWriter.needsLook(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                        for offset in index..<index + 8 { total += escapeBytes(bytes, at: offset) }
                    }
                    index += 8
                }
            }
            while index < bytes.count {
                total += escapeBytes(bytes, at: index)
                index += 1
            }
            return total
        }
    }

    /// The bytes escaping the byte at `offset` adds to its own: 1 for `"`, `\` and the five short
    /// control escapes, 5 for other control characters (`\u00XX`), 3 for the first byte of U+2028
    /// or U+2029 (E2 80 A8 or A9, three bytes written as six), 0 for anything else.
    @inline(__always)
    private static func escapeBytes(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> Int {
        let byte = bytes[offset]
        if byte == 0xE2 {
            let separator = offset + 2 < bytes.count && bytes[offset + 1] == 0x80 && bytes[offset + 2] & 0xFE == 0xA8
            return separator ? 3 : 0
        }
        guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { return 0 }
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x08, 0x09, 0x0A, 0x0C, 0x0D: return 1
        default: return 5
        }
    }
}
