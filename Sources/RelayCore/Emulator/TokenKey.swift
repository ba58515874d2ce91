/// An issued token as the key of the emulator's token table: equal when the whole text is.
///
/// Every token the relay issues is 40 random bytes written as 80 lowercase hex digits (update and
/// push-to-start tokens alike). Such a key holds the digits packed into five words, stored in the
/// table's keys themselves: a push's lookup compares its token where it finds the key, instead of
/// following a pointer to the key's string on the heap (callgrind's cache simulation of
/// `bench-core`: 1.8 fewer last-level misses a delivery). Any other text (never an issued token,
/// but a stored document can hold anything) is kept as it is; a key of either form equals only
/// keys of the same text.
///
/// Hashed by the first 16 packed bytes only: the relay drew them at random, so they tell tokens
/// apart as well as all 40 do, and no request can choose a key (a provider's push only looks one
/// up). Hashing every byte was most of the cost of a push's one lookup of its token.
struct TokenKey: Hashable, Sendable {
    private enum Storage: Equatable, Sendable {
        /// 80 lowercase hex digits, two to a byte: digit `2i` in the low nibble of byte `i`.
        case digits(UInt64, UInt64, UInt64, UInt64, UInt64)
        /// Any other text.
        case text(String)
    }

    private let storage: Storage

    /// How many hex digits an issued token has.
    static let issuedDigits = 80

    /// The key of `text`, whatever it holds.
    init(_ text: String) {
        let isIssuedForm =
            text.utf8.count == Self.issuedDigits
            && APNsASCII.withBytes(text) { bytes in
                bytes.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
            }
        storage = isIssuedForm ? Self.digits(of: text) : .text(text)
    }

    /// The key of `hex`, which must be lowercase hex digits (a device token checked by
    /// `APNsDeviceToken.parse`): its digits are packed without checking them again.
    init(lowercaseHex hex: String) {
        storage = hex.utf8.count == Self.issuedDigits ? Self.digits(of: hex) : .text(hex)
    }

    /// `issuedDigits` lowercase hex digits, packed.
    private static func digits(of hex: String) -> Storage {
        APNsASCII.withBytes(hex) { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            // Each word of the key: sixteen digits, two loads of eight.
            func word(_ index: Int) -> UInt64 {
                packed(raw.loadUnaligned(fromByteOffset: 16 * index, as: UInt64.self))
                    | packed(raw.loadUnaligned(fromByteOffset: 16 * index + 8, as: UInt64.self)) << 32
            }
            return .digits(word(0), word(1), word(2), word(3), word(4))
        }
    }

    /// Eight lowercase hex digits read as a little-endian word (the first digit in the low byte),
    /// packed into the low 32 bits, a nibble each, the first digit in the lowest nibble.
    @inline(__always)
    static func packed(_ digits: UInt64) -> UInt64 {
        // '0'...'9' are 0x30...0x39 and 'a'...'f' 0x61...0x66: a digit's value is its low nibble,
        // plus 9 for a letter (bit 6). No lane can carry into the next: the most is 15.
        let nibbles = (digits & 0x0F0F_0F0F_0F0F_0F0F) &+ ((digits >> 6) & 0x0101_0101_0101_0101) &* 9
        // Each even byte takes the next byte's nibble as its high half; then the even bytes close up.
        var packed = (nibbles | nibbles >> 4) & 0x00FF_00FF_00FF_00FF
        packed = (packed | packed >> 8) & 0x0000_FFFF_0000_FFFF
        return (packed | packed >> 16) & 0x0000_0000_FFFF_FFFF
    }

    /// The hash `Dictionary` asks for: the first 16 packed bytes and the table's seed, mixed by
    /// multiplication instead of fed to `Hasher` (whose finalization was most of a lookup's cost).
    /// Random keys need no keyed hash to spread; the seed still differs per table.
    func _rawHashValue(seed: Int) -> Int {
        guard case .digits(let head, let tail, _, _, _) = storage else {
            var hasher = Hasher()
            hasher.combine(seed)
            hash(into: &hasher)
            return hasher.finalize()
        }
        var mixed = (head ^ UInt64(UInt(bitPattern: seed))) &* 0x9E37_79B9_7F4A_7C15
        mixed ^= tail &* 0xC2B2_AE3D_27D4_EB4F
        mixed ^= mixed >> 29
        mixed &*= 0xBF58_476D_1CE4_E5B9
        mixed ^= mixed >> 32
        return Int(Int64(bitPattern: mixed))
    }

    func hash(into hasher: inout Hasher) {
        switch storage {
        case .digits(let head, let tail, _, _, _):
            hasher.combine(head)
            hasher.combine(tail)
        case .text(let text):
            hasher.combine(text)
        }
    }
}
