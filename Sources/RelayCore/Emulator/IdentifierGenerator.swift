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
    package func fillRandom(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
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
    package func hexToken(byteCount: Int) -> String { Hex.encode(randomBytes(byteCount)) }
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
package enum Hex {
    /// `bytes` as lowercase hex: four bytes at a time (`digits(of:)`, as `uuid` writes them), then
    /// the last one to three one by one.
    package static func encode(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            guard let base = out.baseAddress else { return 0 }
            let text = UnsafeMutableRawPointer(base)
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset + 4 <= raw.count {
                    let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
                    text.storeBytes(of: digits(of: word).littleEndian, toByteOffset: 2 * offset, as: UInt64.self)
                    offset += 4
                }
                for index in offset..<raw.count {
                    let pair = UInt16(truncatingIfNeeded: digits(of: UInt32(raw[index])))
                    text.storeBytes(of: pair.littleEndian, toByteOffset: 2 * index, as: UInt16.self)
                }
            }
            return bytes.count * 2
        }
    }

    /// The first 16 of `bytes` as a version-4 UUID in canonical lowercase form (8-4-4-4-12 digits),
    /// with the version and variant bits set over what they hold.
    static func uuid(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        precondition(bytes.count >= 16, "a UUID takes 16 bytes")
        let raw = UnsafeRawBufferPointer(bytes)
        // Four bytes at a time, eight digits a word (`digits(of:)`), stored where their group of
        // the 8-4-4-4-12 form puts them: a loop over the bytes with a table of digit pairs cost
        // ~300 instructions, these ~80.
        let first = raw.loadUnaligned(fromByteOffset: 0, as: UInt32.self)
        // The version (the high nibble of byte 6) is 4, the variant (the top bits of byte 8) 10.
        let second = raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self) & 0xFF0F_FFFF | 0x0040_0000
        let third = raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self) & 0xFFFF_FF3F | 0x0000_0080
        let fourth = raw.loadUnaligned(fromByteOffset: 12, as: UInt32.self)
        return String(unsafeUninitializedCapacity: 36) { out in
            guard let base = out.baseAddress else { return 0 }
            let text = UnsafeMutableRawPointer(base)
            let dash = UInt8(ascii: "-")
            text.storeBytes(of: digits(of: first).littleEndian, as: UInt64.self)
            text.storeBytes(of: dash, toByteOffset: 8, as: UInt8.self)
            let middle = digits(of: second)
            text.storeBytes(of: UInt32(truncatingIfNeeded: middle).littleEndian, toByteOffset: 9, as: UInt32.self)
            text.storeBytes(of: dash, toByteOffset: 13, as: UInt8.self)
            text.storeBytes(
                of: UInt32(truncatingIfNeeded: middle >> 32).littleEndian, toByteOffset: 14, as: UInt32.self)
            text.storeBytes(of: dash, toByteOffset: 18, as: UInt8.self)
            let last = digits(of: third)
            text.storeBytes(of: UInt32(truncatingIfNeeded: last).littleEndian, toByteOffset: 19, as: UInt32.self)
            text.storeBytes(of: dash, toByteOffset: 23, as: UInt8.self)
            text.storeBytes(of: UInt32(truncatingIfNeeded: last >> 32).littleEndian, toByteOffset: 24, as: UInt32.self)
            text.storeBytes(of: digits(of: fourth).littleEndian, toByteOffset: 28, as: UInt64.self)
            return 36
        }
    }

    /// The lowercase digits of four bytes (`word` read little-endian: the first byte lowest), in
    /// a word read the same way: the first byte's high digit in its lowest byte.
    @inline(__always)
    static func digits(of word: UInt32) -> UInt64 {
        // Each byte to the low half of its own 16-bit lane, then its high nibble alone in the
        // lane's low byte and its low nibble in the lane's high byte.
        var spread = UInt64(word)
        spread = (spread | spread << 16) & 0x0000_FFFF_0000_FFFF
        spread = (spread | spread << 8) & 0x00FF_00FF_00FF_00FF
        let nibbles = (spread >> 4) & 0x0F0F_0F0F_0F0F_0F0F | (spread & 0x0F0F_0F0F_0F0F_0F0F) << 8
        // '0' + n, and 39 more for n of 10 or more ('a' is 39 past '9' + 1); no lane carries.
        let letters = ((nibbles &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        return nibbles &+ 0x3030_3030_3030_3030 &+ letters &* 0x27
    }

    /// Whether `text` is non-empty, of even length and only hex digits (either case).
    package static func isHex(_ text: Substring) -> Bool {
        guard !text.isEmpty, text.utf8.count % 2 == 0 else { return false }
        return text.utf8.allSatisfy { byte in
            (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 70) || (byte >= 97 && byte <= 102)
        }
    }
}
