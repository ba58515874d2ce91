extension JSONValue {
    /// The value as compact, one-line UTF-8 JSON with object keys in byte order.
    ///
    /// Output is deterministic: equal values give equal bytes. Integers are written exactly;
    /// doubles in the shortest form that reads back to the same bits, always with a fraction or
    /// exponent (`3.0`, `1e+16`) so they parse back as `.double`; NaN and infinities as `null`.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        serialize(into: &out)
        return out
    }

    /// Appends the value's compact JSON to `out`, e.g. after an HTTP head or an SSE `data: ` prefix.
    public func serialize(into out: inout [UInt8]) {
        switch self {
        case .null: JSONWriter.append("null", to: &out)
        case .bool(let flag): JSONWriter.append(flag ? "true" : "false", to: &out)
        case .int(let number): JSONWriter.writeInteger(number, to: &out)
        case .double(let number): JSONWriter.writeDouble(number, to: &out)
        case .string(let text): JSONWriter.writeString(text, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                element.serialize(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (position, member) in members.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.writeMember(member.key, member.value, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// The value as compact, one-line JSON text; see `serialized()`.
    public var jsonString: String { String(decoding: serialized(), as: UTF8.self) }
}

/// The pieces of serialization that write scalars straight into the output bytes.
enum JSONWriter {
    /// Appends fixed ASCII such as `null` or an escape sequence.
    static func append(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Writes one object member as `"key":value`.
    static func writeMember(_ key: String, _ value: JSONValue, to out: inout [UInt8]) {
        writeString(key, to: &out)
        out.append(UInt8(ascii: ":"))
        value.serialize(into: &out)
    }

    /// Byte-wise (UTF-8, hence code point) order, the order `JSONObject` keeps its keys in.
    static func precedesInBytes(_ lhs: String, _ rhs: String) -> Bool { JSONObject.precedes(lhs, rhs) }

    /// Writes the decimal digits of `number` directly, `Int64.min` included.
    static func writeInteger(_ number: Int64, to out: inout [UInt8]) {
        if number < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = number.magnitude
        let first = out.count
        repeat {
            out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10))
            magnitude /= 10
        } while magnitude != 0
        var low = first
        var high = out.count - 1
        while low < high {
            out.swapAt(low, high)
            low += 1
            high -= 1
        }
    }

    /// Swift's `description` is the shortest round-trip form and is already valid JSON for every
    /// finite value (`3.0`, `0.1`, `1e-05`, `1.7976931348623157e+308`); non-finite values become null.
    static func writeDouble(_ number: Double, to out: inout [UInt8]) {
        guard number.isFinite else {
            append("null", to: &out)
            return
        }
        var text = number.description
        text.withUTF8 { out.append(contentsOf: $0) }
    }

    /// Writes a quoted string: `"` and `\` escaped, control characters as `\n`-style or `\u00XX`
    /// escapes, U+2028 and U+2029 as `\u2028` and `\u2029` (JavaScript line terminators), all
    /// other characters as raw UTF-8.
    static func writeString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        if text.utf8.withContiguousStorageIfAvailable({ writeEscaped($0, to: &out) }) == nil {
            var native = text
            native.withUTF8 { writeEscaped($0, to: &out) }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Writes a string's UTF-8 without its quotes, copying runs that need no escape in one go.
    private static func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var runStart = 0
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") && byte != 0xE2 {
                i += 1
                continue
            }
            // U+2028 and U+2029 are E2 80 A8 and E2 80 A9; other E2 sequences are written as is.
            let isLineSeparator =
                byte == 0xE2 && i + 2 < bytes.count && bytes[i + 1] == 0x80 && bytes[i + 2] & 0xFE == 0xA8
            if byte == 0xE2 && !isLineSeparator {
                i += 1
                continue
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
            if isLineSeparator {
                append(bytes[i + 2] == 0xA8 ? "\\u2028" : "\\u2029", to: &out)
                i += 3
            } else {
                writeEscape(byte, to: &out)
                i += 1
            }
            runStart = i
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
    }

    private static func writeEscape(_ byte: UInt8, to out: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): append("\\\"", to: &out)
        case UInt8(ascii: "\\"): append("\\\\", to: &out)
        case 0x08: append("\\b", to: &out)
        case 0x0C: append("\\f", to: &out)
        case 0x0A: append("\\n", to: &out)
        case 0x0D: append("\\r", to: &out)
        case 0x09: append("\\t", to: &out)
        default:
            let hex: StaticString = "0123456789abcdef"
            append("\\u00", to: &out)
            out.append(hex.utf8Start[Int(byte >> 4)])
            out.append(hex.utf8Start[Int(byte & 0x0F)])
        }
    }
}
