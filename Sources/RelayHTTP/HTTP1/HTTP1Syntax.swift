/// Octet classes of HTTP/1.1 syntax (RFC 9110 §5.6, RFC 9112), as 256-entry lookup tables.
enum HTTP1Syntax {
    /// Carriage return.
    static let cr = UInt8(ascii: "\r")
    /// Line feed.
    static let lf = UInt8(ascii: "\n")
    /// SP.
    static let space = UInt8(ascii: " ")
    /// HTAB.
    static let tab = UInt8(ascii: "\t")
    /// The field name / value separator.
    static let colon = UInt8(ascii: ":")

    /// `tchar`: the octets of a token (method, field name, transfer coding).
    static let isTokenOctet: [Bool] = (0...255).map { (octet: Int) -> Bool in
        switch UInt8(octet) {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(UInt8(octet))
        }
    }

    /// Octets allowed in a field value: HTAB, SP, VCHAR and obs-text (no other control, no DEL).
    static let isFieldValueOctet: [Bool] = (0...255).map { octet in
        octet == 0x09 || (0x20...0x7E).contains(octet) || octet >= 0x80
    }

    /// Octets allowed in a request target: visible ASCII.
    static func isTargetOctet(_ octet: UInt8) -> Bool { (0x21...0x7E).contains(octet) }

    /// Whether every octet is a token octet and there is at least one.
    static func isToken(_ bytes: ArraySlice<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy { isTokenOctet[Int($0)] }
    }

    /// `bytes` without leading and trailing SP / HTAB.
    static func trimmingWhitespace(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var lower = bytes.startIndex
        var upper = bytes.endIndex
        while lower < upper, bytes[lower] == space || bytes[lower] == tab { lower += 1 }
        while upper > lower, bytes[upper - 1] == space || bytes[upper - 1] == tab { upper -= 1 }
        return bytes[lower..<upper]
    }

    /// ASCII case-insensitive comparison with a lowercase ASCII literal.
    static func equalsLowercased(_ bytes: ArraySlice<UInt8>, _ lowercase: String) -> Bool {
        guard bytes.count == lowercase.utf8.count else { return false }
        return zip(bytes, lowercase.utf8).allSatisfy { lowercaseASCII($0) == $1 }
    }

    /// The octet with A-Z mapped to a-z.
    static func lowercaseASCII(_ octet: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(octet) ? octet + 32 : octet
    }

    /// Splits a comma-separated list into trimmed, non-empty elements (RFC 9110 §5.6.1).
    static func listElements(_ value: String) -> [Substring] {
        value.split(separator: ",").map { $0.trimmingHTTPWhitespace() }.filter { !$0.isEmpty }
    }
}

extension Substring {
    /// Without leading and trailing SP / HTAB.
    func trimmingHTTPWhitespace() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return result
    }
}
