/// The size rule's measure: how many bytes a value takes as compact JSON.
///
/// Stand-in until `JSONValue.serialized()` lands on this branch: it counts the bytes that compact
/// JSON output would have (no whitespace; `"` `\` and the five short control escapes as two bytes,
/// other control characters as `\u00XX`, everything else as its UTF-8 bytes; doubles as Swift prints
/// them) without building the text. Swap the body for `value.serialized().count` once the serializer
/// exists; the counts agree except perhaps in how a non-integer double is spelled.
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

    /// Bytes of a quoted, escaped string.
    private static func stringBytes(_ text: String) -> Int {
        APNsASCII.withBytes(text) { bytes in
            var total = 2 + bytes.count
            for byte in bytes where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x08, 0x09, 0x0A, 0x0C, 0x0D: total += 1
                default: total += 5
                }
            }
            return total
        }
    }
}
