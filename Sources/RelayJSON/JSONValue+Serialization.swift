extension JSONValue {
    /// The value as compact, one-line UTF-8 JSON with object keys in byte order.
    ///
    /// Output is deterministic: equal values give equal bytes. Integers are written exactly;
    /// doubles in the shortest form that reads back to the same bits, always with a fraction or
    /// exponent (`3.0`, `1e+16`) so they parse back as `.double`; NaN and infinities as `null`.
    public func serialized() -> [UInt8] {
        var out = JSONOutput()
        write(to: &out)
        return out.bytes()
    }

    /// Appends the value's compact JSON to `out`, e.g. after an HTTP head or an SSE `data: ` prefix.
    package func serialize(into out: inout [UInt8]) {
        var output = JSONOutput()
        write(to: &output)
        output.append(to: &out)
    }

    /// Writes the value's compact JSON to `out`.
    package func write(to out: inout JSONOutput) {
        switch self {
        case .null: out.append("null")
        case .bool(let flag): out.append(flag ? "true" : "false")
        case .int(let number): JSONWriter.writeInteger(number, to: &out)
        case .double(let number): JSONWriter.writeDouble(number, to: &out)
        case .string(let text): JSONWriter.writeString(text, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                element.write(to: &out)
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
package enum JSONWriter {
    /// Writes one object member as `"key":value`.
    static func writeMember(_ key: String, _ value: JSONValue, to out: inout JSONOutput) {
        writeString(key, to: &out)
        out.append(UInt8(ascii: ":"))
        value.write(to: &out)
    }

    /// Writes the decimal digits of `number` directly, `Int64.min` included.
    package static func writeInteger(_ number: Int64, to out: inout JSONOutput) {
        if number < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = number.magnitude
        let first = out.count
        repeat {
            out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10))
            magnitude /= 10
        } while magnitude != 0
        out.reverse(from: first)
    }

    /// Swift's shortest round-trip form, which is already valid JSON for every finite value
    /// (`3.0`, `0.1`, `1e-05`, `1.7976931348623157e+308`); non-finite values become null. The
    /// digits go through a stack buffer (`DigitSink`) rather than a `description` String.
    package static func writeDouble(_ number: Double, to out: inout JSONOutput) {
        guard number.isFinite else {
            out.append("null")
            return
        }
        if writeShortFraction(number, to: &out) { return }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: DigitSink.capacity) { space in
            var sink = DigitSink(space: space)
            number.write(to: &sink)
            if sink.overflowed {
                var text = number.description
                text.withUTF8 { out.append($0) }
            } else {
                out.append(UnsafeBufferPointer(rebasing: space[..<sink.count]))
            }
        }
    }

    /// Writes a number with a short fraction (a clock's time to the microsecond, a score, a price)
    /// the way Swift's shortest round-trip form does, without its general algorithm; false
    /// (nothing written) for anything it does not handle, which `writeDouble` then formats.
    ///
    /// For `k` = 1 to 6 fraction digits it takes the integer `m` nearest to `number * 10^k` and
    /// stops at the first `m / 10^k` that reads back to the same double: that is the shortest
    /// form, and the closest of that length, which is what Swift prints. The product is below
    /// 2^52, so its rounding error is at most a quarter: with the computed product within a
    /// quarter of `m` (strictly), `m` is surely the nearest. Otherwise either neighbour might be, and
    /// the length is skipped only when neither reads back. Only exact operations and hardware
    /// conversions are used (no `round` or `fma` calls). Integral values, magnitudes outside
    /// [0.001, 10^15) and anything needing more digits are left to the general path.
    static func writeShortFraction(_ number: Double, to out: inout JSONOutput) -> Bool {
        let magnitude = number.magnitude
        guard magnitude >= 0.001, magnitude < 1e15 else { return false }
        let whole = Int64(magnitude)  // truncates; signed conversions are single instructions
        guard Double(whole) != magnitude else { return false }
        var scale = 1.0
        for fraction in 1...6 {
            scale *= 10  // exact: powers of ten up to 10^22 are doubles
            let product = magnitude * scale
            guard product < 4_503_599_627_370_496 else { return false }  // 2^52
            let floor = Int64(product)
            let remainder = product - Double(floor)  // exact
            let nearest = remainder >= 0.5 ? floor + 1 : floor
            let distance = remainder >= 0.5 ? 1 - remainder : remainder
            if distance >= 0.25 {
                // Near a half: either neighbour may be the nearest.
                if Double(floor) / scale == magnitude || Double(floor + 1) / scale == magnitude { return false }
                continue
            }
            if Double(nearest) / scale == magnitude {
                writeFixed(nearest, fractionDigits: fraction, negative: number < 0, to: &out)
                return true
            }
        }
        return false
    }

    /// Writes `scaled / 10^fractionDigits` in fixed notation, e.g. 5 with 3 digits as `0.005`: the
    /// digits go into a stack buffer from the last one, then out in one copy.
    private static func writeFixed(_ scaled: Int64, fractionDigits: Int, negative: Bool, to out: inout JSONOutput) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { space in
            var index = space.count
            var rest = scaled
            for _ in 0..<fractionDigits {
                index -= 1
                space[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
            index -= 1
            space[index] = UInt8(ascii: ".")
            repeat {
                index -= 1
                space[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            if negative {
                index -= 1
                space[index] = UInt8(ascii: "-")
            }
            out.append(UnsafeBufferPointer(rebasing: space[index...]))
        }
    }

    /// How many bytes `writeDouble` writes for `number`, counted through the same stack buffer.
    package static func doubleLength(_ number: Double) -> Int {
        guard number.isFinite else { return 4 }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: DigitSink.capacity) { space in
            var sink = DigitSink(space: space)
            number.write(to: &sink)
            return sink.overflowed ? number.description.utf8.count : sink.count
        }
    }

    /// Collects the characters `Double.write(to:)` produces (at most 24 for any finite double).
    private struct DigitSink: TextOutputStream {
        static let capacity = 48
        let space: UnsafeMutableBufferPointer<UInt8>
        var count = 0
        var overflowed = false

        init(space: UnsafeMutableBufferPointer<UInt8>) { self.space = space }

        mutating func write(_ string: String) {
            for byte in string.utf8 { put(byte) }
        }

        /// The standard library hands a number's ASCII digits here without building a String.
        mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
            for byte in buffer { put(byte) }
        }

        private mutating func put(_ byte: UInt8) {
            guard count < space.count else {
                overflowed = true
                return
            }
            space[count] = byte
            count += 1
        }
    }

    /// Writes a quoted string: `"` and `\` escaped, control characters as `\n`-style or `\u00XX`
    /// escapes, U+2028 and U+2029 as `\u2028` and `\u2029` (JavaScript line terminators), all
    /// other characters as raw UTF-8.
    package static func writeString(_ text: String, to out: inout JSONOutput) {
        out.append(UInt8(ascii: "\""))
        if text.utf8.withContiguousStorageIfAvailable({ writeEscaped($0, to: &out) }) == nil {
            var native = text
            native.withUTF8 { writeEscaped($0, to: &out) }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Writes a string's UTF-8 without its quotes, copying runs that need no escape in one go.
    /// Most strings need none: they are found eight bytes at a time (`needsLook`) and copied
    /// whole; only a string with a byte that might need an escape is read byte by byte.
    private static func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout JSONOutput) {
        guard let base = bytes.baseAddress else { return }
        let count = bytes.count
        var i = 0
        while i + 8 <= count, !needsLook(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) { i += 8 }
        while i < count, isPlainASCII(base[i]) { i += 1 }
        if i == count {
            out.append(bytes)
            return
        }
        var runStart = 0
        while i < count {
            let byte = base[i]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") && byte != 0xE2 {
                i += 1
                continue
            }
            // U+2028 and U+2029 are E2 80 A8 and E2 80 A9; other E2 sequences are written as is.
            let isLineSeparator =
                byte == 0xE2 && i + 2 < count && base[i + 1] == 0x80 && base[i + 2] & 0xFE == 0xA8
            if byte == 0xE2 && !isLineSeparator {
                i += 1
                continue
            }
            out.append(UnsafeBufferPointer(start: base + runStart, count: i - runStart))
            if isLineSeparator {
                out.append(base[i + 2] == 0xA8 ? "\\u2028" : "\\u2029")
                i += 3
            } else {
                writeEscape(byte, to: &out)
                i += 1
            }
            runStart = i
        }
        out.append(UnsafeBufferPointer(start: base + runStart, count: count - runStart))
    }

    /// ASCII that is written as is: printable, not `"` and not `\`.
    @inline(__always)
    static func isPlainASCII(_ byte: UInt8) -> Bool {
        // Bit n of the mask is byte 64·word + n: 0x20...0x7F without 0x22 and 0x5C.
        let low: UInt64 = 0xFFFF_FFFB_0000_0000
        let high: UInt64 = 0xFFFF_FFFF_EFFF_FFFF
        let mask = byte < 0x40 ? low : high
        return byte < 0x80 && (mask >> UInt64(byte & 0x3F)) & 1 == 1
    }

    /// Whether any of the eight bytes in `word` is a control character, `"`, `\` or non-ASCII
    /// (which might start U+2028 or U+2029). Exact for "none", so a false answer lets the whole
    /// word through; a true one only sends the caller to look at the bytes one by one.
    @inline(__always)
    package static func needsLook(_ word: UInt64) -> Bool { lookMask(word) != 0 }

    /// The high bit of each byte of `word` (little-endian: byte 0 is the lowest) that
    /// `needsLook` looks for, and possibly of bytes after the first such one (a subtraction's
    /// borrow); the lowest bit set is exact, so `trailingZeroBitCount / 8` is the first byte that
    /// needs a look. Zero when none does.
    @inline(__always)
    static func lookMask(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- ones &* 0x20) & ~word & highs
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let hasQuote = (quote &- ones) & ~quote & highs
        let hasBackslash = (backslash &- ones) & ~backslash & highs
        return control | hasQuote | hasBackslash | (word & highs)
    }

    private static func writeEscape(_ byte: UInt8, to out: inout JSONOutput) {
        switch byte {
        case UInt8(ascii: "\""): out.append("\\\"")
        case UInt8(ascii: "\\"): out.append("\\\\")
        case 0x08: out.append("\\b")
        case 0x0C: out.append("\\f")
        case 0x0A: out.append("\\n")
        case 0x0D: out.append("\\r")
        case 0x09: out.append("\\t")
        default:
            let hex: StaticString = "0123456789abcdef"
            out.append("\\u00")
            out.append(hex.utf8Start[Int(byte >> 4)])
            out.append(hex.utf8Start[Int(byte & 0x0F)])
        }
    }
}
