/// A fixed set of ASCII names (wire keys, header names), looked up by their bytes.
///
/// A `switch` over `String` cases compares the text against each case in turn, and every mismatch
/// goes through the standard library's Unicode-aware comparison; on the push path that cost more
/// than the checks themselves. Here a name is matched by its length and two words read from its
/// bytes (`Words`), and only a name longer than sixteen bytes that agrees on those has the rest of
/// its bytes compared. That gives the same answer for ASCII names (bytes equal exactly when the
/// strings are equal).
struct ASCIIKeySet: Sendable {
    /// One name: its length, its words, and where its bytes start in `bytes`.
    private struct Entry: Sendable {
        var count: Int
        var words: Words
        var start: Int
    }

    /// Two words that, between texts of the same length up to sixteen bytes, are equal exactly
    /// when the texts are: the first eight bytes and the last eight (overlapping when shorter than
    /// sixteen), or the first four and the last four for four to seven bytes, or the bytes one by
    /// one for fewer. Longer texts agree on their first and last eight bytes at least.
    private struct Words: Equatable, Sendable {
        var first: UInt64
        var last: UInt64

        @inline(__always)
        init(_ text: UnsafeRawBufferPointer) {
            let count = text.count
            if count >= 8 {
                first = text.loadUnaligned(as: UInt64.self)
                last = text.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            } else if count >= 4 {
                first = UInt64(text.loadUnaligned(as: UInt32.self))
                last = UInt64(text.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
            } else {
                first = 0
                for offset in 0..<count { first |= UInt64(text[offset]) << (8 * UInt64(offset)) }
                last = 0
            }
        }
    }

    /// Every name's bytes, one after another, in the order given.
    private let bytes: [UInt8]
    private let entries: [Entry]

    /// A set of `names` (ASCII); `index(of:)` answers with positions in this list.
    init(_ names: [String]) {
        var bytes: [UInt8] = []
        var entries: [Entry] = []
        for name in names {
            let start = bytes.count
            bytes.append(contentsOf: name.utf8)
            let words = bytes.withUnsafeBytes { Words(UnsafeRawBufferPointer(rebasing: $0[start...])) }
            entries.append(Entry(count: bytes.count - start, words: words, start: start))
        }
        self.bytes = bytes
        self.entries = entries
    }

    /// The position of `text` among the names, or nil when it is none of them.
    func index(of text: String) -> Int? {
        APNsASCII.withBytes(text) { index(of: $0) }
    }

    /// The position of the name spelled by `text`, or nil when it is none of them.
    func index(of text: UnsafeBufferPointer<UInt8>) -> Int? {
        let count = text.count
        let words = Words(UnsafeRawBufferPointer(text))
        return entries.withUnsafeBufferPointer { entries in
            for position in entries.indices {
                let entry = entries[position]
                guard entry.count == count, entry.words == words else { continue }
                if count <= 16 || middleMatches(text, entry) { return position }
            }
            return nil
        }
    }

    /// Whether the bytes between the first eight and the last eight of `text` are `entry`'s.
    private func middleMatches(_ text: UnsafeBufferPointer<UInt8>, _ entry: Entry) -> Bool {
        bytes.withUnsafeBufferPointer { names in
            for offset in 8..<entry.count - 8 where names[entry.start + offset] != text[offset] { return false }
            return true
        }
    }
}
