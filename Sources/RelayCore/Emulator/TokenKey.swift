/// An issued token as the key of the emulator's token table: equal when the whole text is, hashed
/// by its first 16 bytes only.
///
/// Every key in the table is a token the relay drew at random (80 hex digits, update and
/// push-to-start tokens alike), so their first 16 digits already tell them apart as well as all of
/// them do, and no request can choose a key: a provider's push only looks one up. Hashing every
/// byte was most of the cost of a push's one lookup of its token.
struct TokenKey: Hashable, Sendable {
    /// The token as lowercase hex.
    let text: String

    init(_ text: String) { self.text = text }

    static func == (left: TokenKey, right: TokenKey) -> Bool { left.text == right.text }

    /// The hash `Dictionary` asks for: the first 16 bytes and the table's seed, mixed by
    /// multiplication instead of fed to `Hasher` (whose finalization was most of a lookup's cost).
    /// Random keys need no keyed hash to spread; the seed still differs per table.
    func _rawHashValue(seed: Int) -> Int {
        guard let (head, tail) = firstWords else {
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
        if let (head, tail) = firstWords {
            hasher.combine(head)
            hasher.combine(tail)
        } else {
            // Short or bridged text (never an issued token): all of it.
            hasher.combine(text)
        }
    }

    /// The first 16 bytes as two words; nil for text shorter than that or not stored as
    /// contiguous UTF-8 (a native string's bytes are; every issued token is longer).
    private var firstWords: (UInt64, UInt64)? {
        let words = text.utf8.withContiguousStorageIfAvailable { bytes -> (UInt64, UInt64)? in
            guard bytes.count >= 16 else { return nil }
            let raw = UnsafeRawBufferPointer(bytes)
            return (
                raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            )
        }
        return words ?? nil
    }
}
