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

    func hash(into hasher: inout Hasher) {
        // A native string's bytes are contiguous; a token is at least 16 of them.
        let words = text.utf8.withContiguousStorageIfAvailable { bytes -> (UInt64, UInt64)? in
            guard bytes.count >= 16 else { return nil }
            let raw = UnsafeRawBufferPointer(bytes)
            return (
                raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            )
        }
        if let (head, tail) = words ?? nil {
            hasher.combine(head)
            hasher.combine(tail)
        } else {
            // Short or bridged text (never an issued token): all of it.
            hasher.combine(text)
        }
    }
}
