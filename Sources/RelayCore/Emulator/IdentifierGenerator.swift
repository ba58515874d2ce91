/// Where new identifiers and tokens come from. The server draws on the system's secure random
/// source; simulations use `SeededIdentifiers` so that a scenario prints the same timeline on
/// every run.
public protocol IdentifierGenerator: AnyObject, Sendable {
    /// `count` random bytes.
    func randomBytes(_ count: Int) -> [UInt8]
}

extension IdentifierGenerator {
    /// A random version-4 UUID in canonical lowercase form, as APNs writes `apns-id`.
    public func uuid() -> String {
        var bytes = randomBytes(16)
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = Hex.encode(bytes)
        let characters = Array(hex)
        var out = ""
        out.reserveCapacity(36)
        for (index, character) in characters.enumerated() {
            if index == 8 || index == 12 || index == 16 || index == 20 { out.append("-") }
            out.append(character)
        }
        return out
    }

    /// A device-style token: `byteCount` random bytes as lowercase hex.
    public func hexToken(byteCount: Int) -> String { Hex.encode(randomBytes(byteCount)) }
}

/// A deterministic generator (SplitMix64) for simulations and tests.
public final class SeededIdentifiers: IdentifierGenerator, @unchecked Sendable {
    // Confined to the single thread that runs a simulation or test.
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public func randomBytes(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count + 8)
        while out.count < count {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            withUnsafeBytes(of: z.littleEndian) { out.append(contentsOf: $0) }
        }
        return Array(out.prefix(count))
    }
}

/// Lowercase hexadecimal.
public enum Hex {
    private static let digits: [Character] = Array("0123456789abcdef")

    /// `bytes` as lowercase hex.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out = ""
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return out
    }

    /// Whether `text` is non-empty, of even length and only hex digits (either case).
    public static func isHex(_ text: Substring) -> Bool {
        guard !text.isEmpty, text.utf8.count % 2 == 0 else { return false }
        return text.utf8.allSatisfy { byte in
            (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 70) || (byte >= 97 && byte <= 102)
        }
    }
}
