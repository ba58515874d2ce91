/// A device token from `/3/device/<token>`: hexadecimal, an even number of digits.
///
/// Apple says not to assume a token's size (hardware tokens are 32 bytes, simulator and Live
/// Activity tokens are often longer), so the relay accepts 16 to 200 bytes. Upper- and lowercase
/// digits are both accepted, as APNs does; the relay identifies tokens by their lowercase form.
public struct APNsDeviceToken: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The token as lowercase hex.
    public let hex: String

    /// Fewest bytes a token may have.
    public static let minBytes = 16
    /// Most bytes a token may have.
    public static let maxBytes = 200

    /// A token from raw bytes (when the relay issues one); written as lowercase hex.
    public init(bytes: [UInt8]) {
        hex = Hex.encode(bytes)
    }

    /// `validatedHex` must be lowercase hex digits already.
    private init(validatedHex: String) {
        hex = validatedHex
    }

    /// The token's bytes.
    public var bytes: [UInt8] {
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

    public var description: String { hex }

    public static func < (lhs: APNsDeviceToken, rhs: APNsDeviceToken) -> Bool { lhs.hex < rhs.hex }

    /// Reads the token part of the path. Empty is `MissingDeviceToken`; anything but hex digits
    /// (a `/`, a space, a query), an odd count, or a size out of bounds is `BadDeviceToken`.
    public static func parse(_ text: String) -> Result<APNsDeviceToken, APNsError> {
        let utf8 = text.utf8
        guard !utf8.isEmpty else {
            return .failure(APNsError(.missingDeviceToken, "the :path has no device token after /3/device/"))
        }
        guard utf8.count <= maxBytes * 2 else {
            return .failure(
                APNsError(
                    .badDeviceToken, "device token is \(utf8.count) characters; at most \(maxBytes * 2) hex digits"))
        }
        // One pass: the first non-hex byte, and whether any digit is an uppercase letter.
        let (badOffset, hasUppercase) = APNsASCII.withBytes(text) { bytes -> (Int?, Bool) in
            var upper = false
            var offset = 0
            while offset < bytes.count {
                let byte = bytes[offset]
                // A digit, else a letter a-f in either case (bit 5 set makes it lowercase).
                if byte &- UInt8(ascii: "0") >= 10 {
                    guard (byte | 0x20) &- UInt8(ascii: "a") < 6 else { return (offset, upper) }
                    upper = upper || byte & 0x20 == 0
                }
                offset += 1
            }
            return (nil, upper)
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
}
