/// HPACK prefix integers (RFC 7541 §5.1): a value that fits in the low `prefixBits` of the first octet
/// is stored there; larger values fill the prefix with ones and continue in 7-bit groups, least
/// significant first, with the high bit set on every octet but the last.
package enum HPACKInteger {
    /// The largest value the decoder accepts. HTTP/2 sizes and lengths are all 32-bit, and the bound keeps
    /// the arithmetic far from overflow on hostile input.
    package static let maxValue = Int(UInt32.max)

    /// Continuation octets needed to carry `maxValue` after a full prefix (5 × 7 = 35 bits); a longer run,
    /// even of zero groups, is rejected so a peer cannot make us loop over padding octets.
    package static let maxContinuationOctets = 5

    /// Appends `value` with a `prefixBits`-bit prefix (1...8); `flags` supplies the first octet's high bits.
    package static func encode(_ value: Int, prefixBits: Int, flags: UInt8 = 0, into buffer: inout [UInt8]) {
        precondition(value >= 0 && (1...8).contains(prefixBits), "HPACK integers are non-negative")
        let mask = (1 << prefixBits) - 1
        if value < mask {
            buffer.append(flags | UInt8(truncatingIfNeeded: value))
            return
        }
        buffer.append(flags | UInt8(truncatingIfNeeded: mask))
        var rest = value - mask
        while rest >= 0x80 {
            buffer.append(UInt8(truncatingIfNeeded: rest & 0x7F) | 0x80)
            rest >>= 7
        }
        buffer.append(UInt8(truncatingIfNeeded: rest))
    }

    /// Reads an integer with a `prefixBits`-bit prefix starting at `index` and moves `index` past it.
    /// The first octet's bits above the prefix are ignored (they carry the representation type).
    package static func decode(
        _ bytes: [UInt8], at index: inout Int, prefixBits: Int
    ) throws(HPACKError) -> Int {
        let start = index
        guard index < bytes.count else { throw HPACKError(.truncated, value: 0, offset: start) }
        let mask = (1 << prefixBits) - 1
        var value = Int(bytes[index]) & mask
        index += 1
        if value < mask { return value }
        var shift = 0
        for _ in 0..<maxContinuationOctets {
            guard index < bytes.count else { throw HPACKError(.truncated, value: value, offset: start) }
            let octet = bytes[index]
            index += 1
            value += Int(octet & 0x7F) << shift
            guard value <= maxValue else { throw HPACKError(.integerOverflow, value: value, offset: start) }
            if octet & 0x80 == 0 { return value }
            shift += 7
        }
        throw HPACKError(.integerOverflow, value: value, offset: start)
    }
}
