/// A string's UTF-8 bytes read in place, for codecs that check or copy header text byte by byte.
enum UTF8Bytes {
    /// Runs `body` over the UTF-8 bytes of `text` without copying them (a copy only for a bridged
    /// string): walking `String.UTF8View` costs several times more per byte.
    static func with<T>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = text
        return copy.withUTF8(body)
    }
}
