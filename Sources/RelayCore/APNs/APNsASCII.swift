/// Byte-level helpers for header values and wire identifiers, so the hot path needs neither
/// Foundation nor Unicode-aware string processing. Internal to RelayCore.
enum APNsASCII {
    /// `0-9a-fA-F`.
    @inline(__always)
    static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            return true
        default: return false
        }
    }

    /// `0-9a-zA-Z`.
    @inline(__always)
    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        default: return false
        }
    }

    /// `0-9`.
    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// The text of `text`'s UTF-8 bytes in `range` (a byte range on Character boundaries), decoded
    /// from the contiguous buffer: decoding a `Substring.UTF8View` walks it through generic code.
    static func slice(_ text: String, _ range: Range<Int>) -> String {
        withBytes(text) { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    /// Whether every byte of `text` is ASCII.
    static func isASCII(_ text: String) -> Bool {
        withBytes(text) { bytes in bytes.allSatisfy { $0 < 0x80 } }
    }

    /// Whether `text` has an ASCII uppercase letter.
    static func hasUppercase(_ text: String) -> Bool {
        withBytes(text) { bytes in bytes.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") } }
    }

    /// The text with ASCII letters lowercased; other bytes unchanged.
    static func lowercased(_ text: String) -> String {
        guard hasUppercase(text) else { return text }
        let bytes = text.utf8.map { byte in
            byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Runs `body` over the UTF-8 bytes of `text` without copying them (for a native string), which
    /// is much cheaper than walking `text.utf8` with indices.
    @inline(__always)
    static func withBytes<Result>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = text
        return copy.withUTF8(body)
    }

    /// `text.hasSuffix(suffix)` for an ASCII `suffix` given as bytes. `String.hasSuffix` compares
    /// Characters and costs hundreds of instructions a call; bytes give the same answer unless a
    /// non-ASCII character precedes the suffix (it could join the suffix's first Character), which
    /// is then left to `String.hasSuffix`.
    static func hasSuffix(_ text: String, _ suffix: [UInt8]) -> Bool {
        let byBytes: Bool? = withBytes(text) { bytes in
            guard bytes.count >= suffix.count else { return false }
            let start = bytes.count - suffix.count
            for offset in 0..<suffix.count where bytes[start + offset] != suffix[offset] { return false }
            return start == 0 || bytes[start - 1] < 0x80 ? true : nil
        }
        return byBytes ?? text.hasSuffix(String(decoding: suffix, as: UTF8.self))
    }

    /// `text.hasPrefix(prefix)` for an ASCII `prefix` given as bytes, as `hasSuffix`: a non-ASCII
    /// byte right after the prefix (it could be a combining mark) is left to `String.hasPrefix`.
    static func hasPrefix(_ text: String, _ prefix: [UInt8]) -> Bool {
        let byBytes: Bool? = withBytes(text) { bytes in
            guard bytes.count >= prefix.count else { return false }
            for offset in 0..<prefix.count where bytes[offset] != prefix[offset] { return false }
            return bytes.count == prefix.count || bytes[prefix.count] < 0x80 ? true : nil
        }
        return byBytes ?? text.hasPrefix(String(decoding: prefix, as: UTF8.self))
    }

    /// The value quoted for a human message, cut to `limit` characters so hostile input cannot
    /// bloat logs.
    static func quoted(_ text: String, limit: Int = 80) -> String {
        if text.utf8.count <= limit { return "'\(text)'" }
        return "'\(text.prefix(limit))…' (\(text.utf8.count) bytes)"
    }
}
