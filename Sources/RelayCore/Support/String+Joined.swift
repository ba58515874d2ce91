extension String {
    /// The pieces one after another, in a string allocated once at its final size and filled by
    /// copying each piece's bytes. An interpolation sizes its buffer from its literals and grows
    /// it again for an ID or a date, and `append` pays for its checks per piece; every push that
    /// is held back or refused builds a message like that.
    static func joined(
        _ first: String, _ second: String, _ third: String = "", _ fourth: String = "", _ fifth: String = ""
    ) -> String {
        let total = first.utf8.count + second.utf8.count + third.utf8.count + fourth.utf8.count + fifth.utf8.count
        return String(unsafeUninitializedCapacity: total) { out in
            var written = first.copyUTF8(into: out)
            written += second.copyUTF8(into: UnsafeMutableBufferPointer(rebasing: out[written...]))
            written += third.copyUTF8(into: UnsafeMutableBufferPointer(rebasing: out[written...]))
            written += fourth.copyUTF8(into: UnsafeMutableBufferPointer(rebasing: out[written...]))
            written += fifth.copyUTF8(into: UnsafeMutableBufferPointer(rebasing: out[written...]))
            return written
        }
    }

    /// Copies this string's UTF-8 bytes to the start of `buffer` (which has room for them) and
    /// returns how many there were.
    private func copyUTF8(into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var text = self  // `withUTF8` is mutating: it makes the bytes contiguous first if they are not
        return text.withUTF8 { bytes in
            _ = buffer.initialize(fromContentsOf: bytes)
            return bytes.count
        }
    }
}
