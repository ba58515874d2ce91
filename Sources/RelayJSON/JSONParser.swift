/// A strict RFC 8259 recursive-descent parser over one contiguous byte buffer.
///
/// One pass, no Foundation: structure, literals and numbers are read here, strings in
/// `JSONParser+Strings.swift`. The buffer is only borrowed while the parser is used. Besides
/// whole documents (`parse`), a caller in this package may read an object member by member
/// (`JSONParser+Members.swift`), building only the values it wants.
package struct JSONParser {
    /// The whole document.
    let bytes: UnsafeBufferPointer<UInt8>
    /// The next byte to read.
    var index = 0
    /// How many containers may enclose a value.
    let maxDepth: Int
    /// Reused buffer for strings that contain escapes.
    var scratch: [UInt8] = []

    /// Parses `bytes` as one document; a Result so that callers can cross non-throwing closures.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) -> Result<JSONValue, JSONParseError> {
        var parser = JSONParser(bytes: bytes, maxDepth: max(0, maxDepth))
        do {
            return .success(try parser.parseDocument())
        } catch {
            return .failure(error)
        }
    }

    /// A parser at the start of `bytes`, allowing `maxDepth` levels of nesting.
    package init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    /// Room reserved for a container's elements or members up front: a push's objects have a
    /// handful, and growing an array 1, 2, 4, 8 allocates four times.
    private static let initialCapacity = 8

    /// The byte at `index`, or nil at the end of input.
    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue(depth: 0)
        skipWhitespace()
        if let extra = current {
            throw JSONParseError(
                kind: .trailingData, offset: index,
                message: "expected end of input after the JSON value, found \(JSONParseError.describe(extra))")
        }
        return value
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// Parses the value at `index`; `depth` counts the containers around it.
    package mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard let byte = current else { throw .expected("a value", found: nil, at: index) }
        switch byte {
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw .expected("a value", found: byte, at: index)
        }
    }

    mutating func enter(depth: Int) throws(JSONParseError) {
        guard depth < maxDepth else {
            throw JSONParseError(
                kind: .tooDeep, offset: index, message: "arrays and objects nested deeper than \(maxDepth) levels")
        }
        index += 1
        skipWhitespace()
    }

    private mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        try enter(depth: depth)
        if current == UInt8(ascii: "]") {
            index += 1
            return .array([])
        }
        var elements: [JSONValue] = []
        elements.reserveCapacity(Self.initialCapacity)
        while true {
            elements.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            case let other: throw .expected("',' or ']' after array element", found: other, at: index)
            }
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        try enter(depth: depth)
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(JSONObject())
        }
        var members: [JSONObject.Member] = []
        members.reserveCapacity(Self.initialCapacity)
        while true {
            guard current == UInt8(ascii: "\"") else {
                let what = members.isEmpty ? "a string key or '}'" : "a string key after ','"
                throw .expected(what, found: current, at: index)
            }
            let key = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else {
                throw .expected("':' after object key", found: current, at: index)
            }
            index += 1
            skipWhitespace()
            members.append(JSONObject.Member(key: key, value: try parseValue(depth: depth + 1)))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                index += 1
                return .object(JSONObject(kept: members))  // a repeated key: last wins
            case let other: throw .expected("',' or '}' after object member", found: other, at: index)
            }
        }
    }

    /// Consumes `literal` (`true`, `false` or `null`), whose first byte is already known to match.
    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let start = index
        let count = literal.utf8CodeUnitCount
        let base = literal.utf8Start
        for offset in 1..<count {
            let found = start + offset < bytes.count ? bytes[start + offset] : nil
            guard found == base[offset] else {
                throw .expected("'\(literal)'", found: found, at: start + offset)
            }
        }
        index = start + count
    }
}

// MARK: - Numbers

extension JSONParser {
    /// Exact powers of ten a Double holds without rounding, for the fast conversion path.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Parses a number per the RFC grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        if let value = shortInteger() { return .int(value) }
        let start = index
        let end = bytes.count
        var i = index
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }

        // Up to 19 significant digits are kept exactly; more only sends the number to the slow path.
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var truncated = false
        func take(_ byte: UInt8) {
            guard significantDigits < 19 else {
                truncated = true
                return
            }
            mantissa = mantissa &* 10 &+ UInt64(byte &- UInt8(ascii: "0"))
            if mantissa != 0 { significantDigits += 1 }
        }
        func isDigit(_ at: Int) -> Bool { at < end && bytes[at] &- UInt8(ascii: "0") < 10 }
        func found(_ at: Int) -> UInt8? { at < end ? bytes[at] : nil }

        guard isDigit(i) else {
            throw .expected("a digit after '-'", found: found(i), at: i, kind: .invalidNumber)
        }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if isDigit(i) {
                throw JSONParseError(
                    kind: .invalidNumber, offset: i - 1, message: "leading zeros are not allowed in numbers")
            }
        } else {
            while isDigit(i) {
                take(bytes[i])
                i += 1
            }
        }

        var isInteger = true
        var fractionDigits = 0
        if i < end && bytes[i] == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            guard isDigit(i) else {
                throw .expected("a digit after '.'", found: found(i), at: i, kind: .invalidNumber)
            }
            while isDigit(i) {
                if !truncated { fractionDigits += 1 }
                take(bytes[i])
                i += 1
            }
        }

        var exponent = 0
        if i < end && bytes[i] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            i += 1
            var exponentNegative = false
            if i < end && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) {
                exponentNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            guard isDigit(i) else {
                throw .expected("a digit in the exponent", found: found(i), at: i, kind: .invalidNumber)
            }
            while isDigit(i) {
                // Saturate: any exponent this large already means zero or out of range.
                if exponent < 100_000 { exponent = exponent * 10 + Int(bytes[i] &- UInt8(ascii: "0")) }
                i += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        index = i

        if isInteger && !truncated {
            if negative && mantissa <= UInt64(Int64.max) + 1 {
                return .int(Int64(truncatingIfNeeded: 0 &- mantissa))
            }
            if !negative && mantissa <= UInt64(Int64.max) { return .int(Int64(mantissa)) }
        }
        if !truncated {
            if mantissa == 0 { return .double(negative ? -0.0 : 0.0) }
            // Clinger's fast path: both operands exact, so one IEEE operation rounds correctly.
            let scale = exponent - fractionDigits
            if mantissa <= 1 << 53 && scale >= -22 && scale <= 22 {
                let magnitude =
                    scale < 0
                    ? Double(mantissa) / Self.exactPowersOfTen[-scale]
                    : Double(mantissa) * Self.exactPowersOfTen[scale]
                return .double(negative ? -magnitude : magnitude)
            }
        }
        return .double(try slowDouble(from: start, to: i))
    }

    /// The usual number, an integer of 1 to 18 digits without a leading zero (a timestamp, a
    /// count), read in one loop and consumed; nil, with nothing consumed, for any other number
    /// (`parseNumber` reads those from the start).
    @inline(__always)
    mutating func shortInteger() -> Int64? {
        let end = bytes.count
        let negative = bytes[index] == UInt8(ascii: "-")
        let first = negative ? index + 1 : index
        guard first < end, bytes[first] &- UInt8(ascii: "1") < 9 else { return nil }
        var value: Int64 = 0
        var i = first
        while i < end, case let digit = bytes[i] &- UInt8(ascii: "0"), digit < 10, i - first < 18 {
            value = value &* 10 &+ Int64(digit)
            i += 1
        }
        let next = i < end ? bytes[i] : 0
        guard next &- UInt8(ascii: "0") >= 10, next != UInt8(ascii: "."), next | 0x20 != UInt8(ascii: "e") else {
            return nil
        }
        index = i
        return negative ? -value : value
    }

    /// Converts an already validated number with the standard library's correctly rounded reader.
    private func slowDouble(from start: Int, to end: Int) throws(JSONParseError) -> Double {
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            let shown = text.utf8.count > 40 ? String(text.prefix(40)) + "..." : text
            throw JSONParseError(
                kind: .numberOutOfRange, offset: start, message: "number \(shown) is out of range for a Double")
        }
        return value
    }
}
