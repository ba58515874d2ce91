/// Strict base64 in both alphabets: base64url without padding (JWS, RFC 7515 §2) for provider
/// tokens, and standard base64 with padding (RFC 4648 §4) for broadcast channel IDs.
///
/// Decoding is strict because every input is hostile: characters outside the alphabet, padding
/// where none belongs (or missing where it does), an impossible length, or nonzero bits in the
/// unused tail of the last character all fail, so each byte string has exactly one encoding.
package enum Base64Codec {
    /// Decodes unpadded base64url (`A–Z a–z 0–9 - _`), or nil.
    package static func decodeURL(_ text: Substring) -> [UInt8]? {
        decode(text.utf8, urlAlphabet: true, padded: false)
    }

    /// Decodes padded standard base64 (`A–Z a–z 0–9 + /`, `=` to a multiple of 4), or nil.
    package static func decode(_ text: String) -> [UInt8]? {
        decode(text.utf8, urlAlphabet: false, padded: true)
    }

    /// Encodes as unpadded base64url.
    package static func encodeURL(_ bytes: [UInt8]) -> String { encode(bytes, alphabet: urlAlphabet, padded: false) }

    /// Encodes as padded standard base64.
    package static func encode(_ bytes: [UInt8]) -> String { encode(bytes, alphabet: standardAlphabet, padded: true) }

    // MARK: - Implementation

    private static let standardAlphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlAlphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static func encode(_ bytes: [UInt8], alphabet: [UInt8], padded: Bool) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in stride(from: 18, through: 0, by: -6) {
                output.append(alphabet[Int(group >> UInt32(shift) & 63)])
            }
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            var group = UInt32(bytes[index]) << 16
            if rest == 2 { group |= UInt32(bytes[index + 1]) << 8 }
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            if rest == 2 { output.append(alphabet[Int(group >> 6 & 63)]) }
            if padded { output += Array(repeating: UInt8(ascii: "="), count: 3 - rest) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The 6-bit value of an alphabet character, or nil.
    @inline(__always)
    private static func sextet(_ byte: UInt8, urlAlphabet: Bool) -> UInt32? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return UInt32(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return UInt32(byte - UInt8(ascii: "a") + 26)
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0") + 52)
        case UInt8(ascii: "-") where urlAlphabet, UInt8(ascii: "+") where !urlAlphabet: return 62
        case UInt8(ascii: "_") where urlAlphabet, UInt8(ascii: "/") where !urlAlphabet: return 63
        default: return nil
        }
    }

    private static func decode<Bytes: Collection<UInt8>>(_ text: Bytes, urlAlphabet: Bool, padded: Bool) -> [UInt8]? {
        var characters = text.count
        if padded {
            guard characters % 4 == 0 else { return nil }
            // Up to two trailing '=' are padding; any other '=' fails the alphabet check below.
            var padding = 0
            for byte in text.reversed() {
                guard byte == UInt8(ascii: "="), padding < 2 else { break }
                padding += 1
            }
            characters -= padding
        }
        guard characters % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(characters * 3 / 4)
        var group: UInt32 = 0
        var filled = 0
        for byte in text.prefix(characters) {
            guard let value = sextet(byte, urlAlphabet: urlAlphabet) else { return nil }
            group = group << 6 | value
            filled += 1
            if filled == 4 {
                output.append(UInt8(group >> 16 & 0xFF))
                output.append(UInt8(group >> 8 & 0xFF))
                output.append(UInt8(group & 0xFF))
                group = 0
                filled = 0
            }
        }
        switch filled {
        case 2:
            guard group & 0x0F == 0 else { return nil }
            output.append(UInt8(group >> 4 & 0xFF))
        case 3:
            guard group & 0x03 == 0 else { return nil }
            output.append(UInt8(group >> 10 & 0xFF))
            output.append(UInt8(group >> 2 & 0xFF))
        default:
            break
        }
        return output
    }
}
