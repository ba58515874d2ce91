/// A fixed set of ASCII names (wire keys, header names), looked up by their bytes.
///
/// A `switch` over `String` cases compares the text against each case in turn, and every mismatch
/// goes through the standard library's Unicode-aware comparison; on the push path that cost more
/// than the checks themselves. Here a name is matched by length first and then byte by byte, which
/// gives the same answer for ASCII names (bytes equal exactly when the strings are equal).
struct ASCIIKeySet: Sendable {
    /// Each name's bytes, in the order given.
    private let names: [[UInt8]]

    /// A set of `names` (ASCII); `index(of:)` answers with positions in this list.
    init(_ names: [String]) {
        self.names = names.map { Array($0.utf8) }
    }

    /// The position of `text` among the names, or nil when it is none of them.
    func index(of text: String) -> Int? {
        APNsASCII.withBytes(text) { index(of: $0) }
    }

    /// The position of the name spelled by `bytes`, or nil when it is none of them.
    func index(of bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        for (position, name) in names.enumerated() where name.count == bytes.count {
            var offset = 0
            while offset < bytes.count, bytes[offset] == name[offset] { offset += 1 }
            if offset == bytes.count { return position }
        }
        return nil
    }
}
