/// Base64url without padding (RFC 4648 §5, as JWS uses it), strict on input.
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each ASCII byte's 6-bit value, or 0xFF for a byte outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// `bytes` as base64url text, without padding.
    package static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            output.append(alphabet[Int(group >> 6 & 63)])
            output.append(alphabet[Int(group & 63)])
            index += 3
        }
        switch bytes.count - index {
        case 1:
            let group = UInt32(bytes[index]) << 16
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
        case 2:
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            output.append(alphabet[Int(group >> 6 & 63)])
        default:
            break
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes `text` encodes. Refuses padding, whitespace and any character outside the
    /// base64url alphabet, a length no encoding has (4n + 1), and unused low bits that are not
    /// zero (so every byte string has exactly one accepted encoding).
    package static func decode(_ text: some StringProtocol) throws(Base64URLError) -> [UInt8] {
        try decode(bytes: text.utf8)
    }

    /// `decode(_:)` over the text's UTF-8 bytes.
    package static func decode(bytes text: some Collection<UInt8>) throws(Base64URLError) -> [UInt8] {
        let count = text.count
        guard count % 4 != 1 else {
            throw Base64URLError(offset: count - 1, byte: nil, reason: "length \(count) is not a base64url length")
        }
        var output: [UInt8] = []
        output.reserveCapacity(count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for (offset, byte) in text.enumerated() {
            let value = values[Int(byte)]
            guard value != 0xFF else {
                let reason =
                    byte == UInt8(ascii: "=") ? "padding is not allowed" : "byte is not in the base64url alphabet"
                throw Base64URLError(offset: offset, byte: byte, reason: reason)
            }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        guard accumulator == 0 else {
            throw Base64URLError(offset: count - 1, byte: nil, reason: "unused trailing bits are not zero")
        }
        return output
    }
}

/// Text that is not strict base64url: where, which byte, and why.
package struct Base64URLError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The offset of the offending byte in the text.
    package var offset: Int
    /// The offending byte, when one byte is at fault.
    package var byte: UInt8?
    /// Why the text was refused.
    package var reason: String

    /// A refusal at `offset` (of `byte`, when one byte is at fault) for `reason`.
    package init(offset: Int, byte: UInt8?, reason: String) {
        self.offset = offset
        self.byte = byte
        self.reason = reason
    }

    package var description: String {
        let shown = byte.map { " (byte 0x\(String($0, radix: 16)))" } ?? ""
        return "invalid base64url at offset \(offset)\(shown): \(reason)"
    }
}
