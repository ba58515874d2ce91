// MARK: - Strings

extension JSONParser {
    /// Parses the string whose opening quote is at `index`.
    ///
    /// A string without escapes becomes a `String` straight from the input bytes; one with escapes
    /// is decoded into `scratch` first. Only strings with non-ASCII bytes pay for UTF-8 validation.
    mutating func parseString() throws(JSONParseError) -> String {
        let open = index
        let start = index + 1
        let end = bytes.count
        var i = plainWords(from: start)
        var seen: UInt8 = 0  // every byte ORed together (from `i`): bit 7 set means non-ASCII was seen
        while i < end {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                index = i + 1
                try validateUTF8(start..<i, seen: seen)
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw Self.controlCharacter(byte, at: i) }
            seen |= byte
            i += 1
        }

        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
        while i < end {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                index = i + 1
                try validateUTF8(start..<i, seen: seen)
                return String(decoding: scratch, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") {
                i = try decodeEscape(at: i)
                continue
            }
            if byte < 0x20 { throw Self.controlCharacter(byte, at: i) }
            // Copy the run of plain bytes up to the next quote, backslash or control character.
            let runStart = i
            seen |= byte
            i += 1
            while i < end {
                let next = bytes[i]
                if next == UInt8(ascii: "\"") || next == UInt8(ascii: "\\") || next < 0x20 { break }
                seen |= next
                i += 1
            }
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
        }
        throw JSONParseError(
            kind: .unexpectedEnd, offset: end,
            message: "unterminated string starting at byte \(open), found end of input")
    }

    /// Checks the raw bytes of a string (escapes are ASCII, so they never fail) when any byte
    /// was non-ASCII; decoded text is therefore well-formed before it becomes a `String`.
    private func validateUTF8(_ source: Range<Int>, seen: UInt8) throws(JSONParseError) {
        guard seen & 0x80 != 0, let offset = Self.firstInvalidUTF8(in: bytes, range: source) else { return }
        throw JSONParseError(
            kind: .invalidUTF8, offset: offset, message: "invalid UTF-8 byte \(JSONParseError.describe(bytes[offset]))")
    }

    private static func controlCharacter(_ byte: UInt8, at offset: Int) -> JSONParseError {
        JSONParseError(
            kind: .invalidString, offset: offset,
            message: "unescaped control character \(JSONParseError.describe(byte)) in string")
    }

    /// Appends the character the escape at `start` (a backslash) stands for; returns the index after it.
    private mutating func decodeEscape(at start: Int) throws(JSONParseError) -> Int {
        guard start + 1 < bytes.count else {
            throw .expected("an escape character after '\\'", found: nil, at: start + 1)
        }
        let simple: UInt8
        switch bytes[start + 1] {
        case UInt8(ascii: "\""): simple = 0x22
        case UInt8(ascii: "\\"): simple = 0x5C
        case UInt8(ascii: "/"): simple = 0x2F
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"): return try decodeUnicodeEscape(at: start)
        case let other:
            throw JSONParseError(
                kind: .invalidString, offset: start + 1,
                message: "invalid escape character \(JSONParseError.describe(other)) after '\\'")
        }
        scratch.append(simple)
        return start + 2
    }

    /// Decodes `\uXXXX`, or a `\uD8xx\uDCxx` surrogate pair, starting at the backslash at `start`.
    private mutating func decodeUnicodeEscape(at start: Int) throws(JSONParseError) -> Int {
        let first = try hexQuad(at: start + 2)
        var scalar = first
        var next = start + 6
        switch first {
        case 0xD800...0xDBFF:
            let hasPair =
                next + 1 < bytes.count && bytes[next] == UInt8(ascii: "\\") && bytes[next + 1] == UInt8(ascii: "u")
            let second = hasPair ? try hexQuad(at: next + 2) : 0
            guard 0xDC00...0xDFFF ~= second else { throw Self.loneSurrogate(first, at: start) }
            scalar = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            next += 6
        case 0xDC00...0xDFFF:
            throw Self.loneSurrogate(first, at: start)
        default:
            break
        }
        appendUTF8(scalar)
        return next
    }

    private static func loneSurrogate(_ unit: UInt32, at offset: Int) -> JSONParseError {
        let hex = String(unit, radix: 16, uppercase: true)
        return JSONParseError(
            kind: .invalidUnicodeEscape, offset: offset,
            message: "lone surrogate \\u\(hex) is not a character (a high surrogate needs a low one after it)")
    }

    /// The value of the four hex digits at `start`.
    private func hexQuad(at start: Int) throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for offset in start..<start + 4 {
            guard offset < bytes.count else {
                throw .expected("4 hex digits after '\\u'", found: nil, at: offset, kind: .invalidUnicodeEscape)
            }
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default:
                throw .expected("4 hex digits after '\\u'", found: byte, at: offset, kind: .invalidUnicodeEscape)
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// The offset where the first ill-formed UTF-8 sequence in `range` starts (RFC 3629: no
    /// overlong forms, no surrogates, nothing past U+10FFFF), or nil when all of it is well-formed.
    static func firstInvalidUTF8(in bytes: UnsafeBufferPointer<UInt8>, range: Range<Int>) -> Int? {
        var i = range.lowerBound
        let end = range.upperBound
        while i < end {
            let lead = bytes[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var secondRange: ClosedRange<UInt8> = 0x80...0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                secondRange = 0xA0...0xBF
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                secondRange = 0x80...0x9F
            case 0xF0:
                length = 4
                secondRange = 0x90...0xBF
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                secondRange = 0x80...0x8F
            default: return i
            }
            for offset in 1..<length {
                let allowed = offset == 1 ? secondRange : 0x80...0xBF
                guard i + offset < end, allowed ~= bytes[i + offset] else { return i }
            }
            i += length
        }
        return nil
    }
}
