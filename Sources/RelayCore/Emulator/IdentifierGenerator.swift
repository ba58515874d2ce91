/// Where new identifiers and tokens come from. The server draws on the system's secure random
/// source; simulations use `SeededIdentifiers` so that a scenario prints the same timeline on
/// every run.
public protocol IdentifierGenerator: AnyObject, Sendable {
    /// `count` random bytes.
    func randomBytes(_ count: Int) -> [UInt8]

    /// Fills `buffer` with random bytes (by default with `randomBytes`; generators that can write
    /// in place spare the array).
    func fillRandom(_ buffer: UnsafeMutableBufferPointer<UInt8>)
}

extension IdentifierGenerator {
    public func fillRandom(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        let bytes = randomBytes(buffer.count)
        for index in buffer.indices { buffer[index] = bytes[index] }
    }

    /// A random version-4 UUID in canonical lowercase form, as APNs writes `apns-id`.
    public func uuid() -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { bytes in
            fillRandom(bytes)
            return Hex.uuid(UnsafeBufferPointer(bytes))
        }
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
        [UInt8](unsafeUninitializedCapacity: max(0, count)) { buffer, initialized in
            fillRandom(UnsafeMutableBufferPointer(rebasing: buffer[...]))
            initialized = buffer.count
        }
    }

    public func fillRandom(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        var filled = 0
        while filled < buffer.count {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            // Little-endian bytes of each draw, as many as are still wanted.
            var shift: UInt64 = 0
            while shift < 64, filled < buffer.count {
                buffer[filled] = UInt8(truncatingIfNeeded: z >> shift)
                filled += 1
                shift += 8
            }
        }
    }
}

/// Lowercase hexadecimal.
public enum Hex {
    /// The lowercase digit for `nibble` (0-15).
    @inline(__always)
    static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ (nibble &- 10)
    }

    /// Each byte's two lowercase digits, the first in the low byte: stored little-endian, they
    /// lie in the order they are read.
    static let pairs: [UInt16] = (0..<256).map { byte in
        UInt16(digit(UInt8(byte & 0x0F))) << 8 | UInt16(digit(UInt8(byte >> 4)))
    }

    /// `bytes` as lowercase hex.
    public static func encode(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            guard let out = out.baseAddress else { return 0 }
            pairs.withUnsafeBufferPointer { pairs in
                for (index, byte) in bytes.enumerated() { store(pairs[Int(byte)], at: out + 2 * index) }
            }
            return bytes.count * 2
        }
    }

    /// The first 16 of `bytes` as a version-4 UUID in canonical lowercase form (8-4-4-4-12 digits),
    /// with the version and variant bits set over what they hold.
    static func uuid(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        precondition(bytes.count >= 16, "a UUID takes 16 bytes")
        // Written as bytes, two digits a byte from the table and the dashes in their places:
        // appending Characters one by one costs more than drawing the randomness.
        return String(unsafeUninitializedCapacity: 36) { out in
            guard let out = out.baseAddress else { return 0 }
            pairs.withUnsafeBufferPointer { pairs in
                for index in 0..<16 {
                    // Past each of bytes 4, 6, 8 and 10 the digits move one place for a dash.
                    let dashes =
                        (index >= 4 ? 1 : 0) + (index >= 6 ? 1 : 0) + (index >= 8 ? 1 : 0) + (index >= 10 ? 1 : 0)
                    store(pairs[Int(bytes[index])], at: out + 2 * index + dashes)
                }
                // The version (byte 6) and the variant (byte 8) written again over what was drawn.
                store(pairs[Int((bytes[6] & 0x0F) | 0x40)], at: out + 14)
                store(pairs[Int((bytes[8] & 0x3F) | 0x80)], at: out + 19)
            }
            let dash = UInt8(ascii: "-")
            out[8] = dash
            out[13] = dash
            out[18] = dash
            out[23] = dash
            return 36
        }
    }

    /// Writes a byte's two digits from `pairs` at `position`.
    @inline(__always)
    private static func store(_ pair: UInt16, at position: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(position).storeBytes(of: pair.littleEndian, as: UInt16.self)
    }

    /// Whether `text` is non-empty, of even length and only hex digits (either case).
    public static func isHex(_ text: Substring) -> Bool {
        guard !text.isEmpty, text.utf8.count % 2 == 0 else { return false }
        return text.utf8.allSatisfy { byte in
            (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 70) || (byte >= 97 && byte <= 102)
        }
    }
}
