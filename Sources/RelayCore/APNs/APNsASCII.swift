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

    /// `A-F` only.
    @inline(__always)
    static func isUppercaseHexLetter(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F")
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

    /// The text with ASCII letters lowercased; other bytes unchanged.
    static func lowercased(_ text: String) -> String {
        let needsWork = withBytes(text) { bytes in
            bytes.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
        }
        guard needsWork else { return text }
        let bytes = text.utf8.map { byte in
            byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Runs `body` over the UTF-8 bytes of `text` without copying them (for a native string), which
    /// is much cheaper than walking `text.utf8` with indices.
    @inline(__always)
    static func withBytes<Result>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        var text = text
        return text.withUTF8(body)
    }

    /// The byte offset of the first occurrence of `needle` (non-empty) in `text`, or nil.
    static func firstOffset(of needle: [UInt8], in text: String) -> Int? {
        guard let first = needle.first else { return nil }
        return withBytes(text) { haystack -> Int? in
            guard haystack.count >= needle.count else { return nil }
            var start = 0
            while start <= haystack.count - needle.count {
                if haystack[start] == first {
                    var matched = 1
                    while matched < needle.count, haystack[start + matched] == needle[matched] { matched += 1 }
                    if matched == needle.count { return start }
                }
                start += 1
            }
            return nil
        }
    }

    /// The value quoted for a human message, cut to `limit` characters so hostile input cannot
    /// bloat logs.
    static func quoted(_ text: String, limit: Int = 80) -> String {
        if text.utf8.count <= limit { return "'\(text)'" }
        return "'\(text.prefix(limit))…' (\(text.utf8.count) bytes)"
    }
}
