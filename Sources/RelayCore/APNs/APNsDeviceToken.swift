/// A device token from `/3/device/<token>`: hexadecimal, an even number of digits.
///
/// Apple says not to assume a token's size (hardware tokens are 32 bytes, simulator and Live
/// Activity tokens are often longer), so the relay accepts 16 to 200 bytes. Upper- and lowercase
/// digits are both accepted, as APNs does; the relay identifies tokens by their lowercase form.
package struct APNsDeviceToken: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The token as lowercase hex.
    package let hex: String
    /// The token as the emulator's token table finds it, made with the token (on the server, when
    /// the request is validated, outside the emulator's lock).
    let key: TokenKey

    /// Fewest bytes a token may have.
    package static let minBytes = 16
    /// Most bytes a token may have.
    package static let maxBytes = 200

    /// A token from raw bytes (when the relay issues one); written as lowercase hex.
    package init(bytes: [UInt8]) {
        self.init(validatedHex: Hex.encode(bytes))
    }

    /// `validatedHex` must be lowercase hex digits already.
    private init(validatedHex: String) {
        hex = validatedHex
        key = TokenKey(validatedHex)
    }

    /// Tokens are equal when their digits are (`key` follows from them).
    package static func == (lhs: APNsDeviceToken, rhs: APNsDeviceToken) -> Bool { lhs.hex == rhs.hex }

    package func hash(into hasher: inout Hasher) { hasher.combine(hex) }

    /// The token's bytes.
    package var bytes: [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(hex.utf8.count / 2)
        var high: UInt8?
        for byte in hex.utf8 {
            let nibble = byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : byte - UInt8(ascii: "a") + 10
            if let first = high {
                result.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return result
    }

    package var description: String { hex }

    package static func < (lhs: APNsDeviceToken, rhs: APNsDeviceToken) -> Bool { lhs.hex < rhs.hex }

    /// Reads the token part of the path. Empty is `MissingDeviceToken`; anything but hex digits
    /// (a `/`, a space, a query), an odd count, or a size out of bounds is `BadDeviceToken`.
    package static func parse(_ text: String) -> Result<APNsDeviceToken, APNsError> {
        let utf8 = text.utf8
        guard !utf8.isEmpty else {
            return .failure(APNsError(.missingDeviceToken, "the :path has no device token after /3/device/"))
        }
        guard utf8.count <= maxBytes * 2 else {
            return .failure(
                APNsError(
                    .badDeviceToken, "device token is \(utf8.count) characters; at most \(maxBytes * 2) hex digits"))
        }
        // One pass that only ORs each byte's class together (no branch per byte); the first bad
        // byte's offset is looked for only when there is one.
        let (badOffset, hasUppercase) = APNsASCII.withBytes(text) { bytes -> (Int?, Bool) in
            let seen = hexClasses.withUnsafeBufferPointer { classes -> UInt8 in
                var seen: UInt8 = 0
                for byte in bytes { seen |= classes[Int(byte)] }
                return seen
            }
            guard seen & HexClass.invalid != 0 else { return (nil, seen & HexClass.uppercase != 0) }
            let offset = hexClasses.withUnsafeBufferPointer { classes in
                bytes.firstIndex { classes[Int($0)] & HexClass.invalid != 0 }
            }
            return (offset, seen & HexClass.uppercase != 0)
        }
        if let offset = badOffset {
            return .failure(
                APNsError(
                    .badDeviceToken,
                    "device token \(APNsASCII.quoted(text)) has a non-hex character at offset \(offset)"))
        }
        guard utf8.count % 2 == 0 else {
            return .failure(
                APNsError(.badDeviceToken, "device token has an odd number (\(utf8.count)) of hex digits"))
        }
        guard utf8.count >= minBytes * 2 else {
            return .failure(
                APNsError(
                    .badDeviceToken, "device token is \(utf8.count / 2) bytes; tokens have at least \(minBytes)"))
        }
        return .success(APNsDeviceToken(validatedHex: hasUppercase ? APNsASCII.lowercased(text) : text))
    }

    /// The bits of `hexClasses`: a lowercase digit or letter has none.
    private enum HexClass {
        static let uppercase: UInt8 = 1
        static let invalid: UInt8 = 2
    }

    /// Every byte's `HexClass`: `0`-`9` and `a`-`f` are 0, `A`-`F` uppercase, the rest invalid.
    private static let hexClasses: [UInt8] = (0...255).map { (byte: Int) -> UInt8 in
        switch byte {
        case 0x30...0x39, 0x61...0x66: return 0
        case 0x41...0x46: return HexClass.uppercase
        default: return HexClass.invalid
        }
    }
}
