// MARK: - Objects kept as text

extension JSONParser {
    /// Reads the object at `index` (its `{`, `depth` containers deep) as a `JSONObjectText` when,
    /// whitespace aside, it is already what `JSONValue.serialized()` would write for it: keys in
    /// byte order, each once; strings of printable ASCII with nothing to escape; numbers as the
    /// serializer writes them (no `-0`, doubles in their shortest form); nested objects and arrays
    /// alike. Sets `shape` and `size` as `parseObject` does. Any other object gives nil with
    /// nothing consumed: the caller parses it into values, which also reports its errors.
    mutating func canonicalObject(depth: Int) -> JSONValue? {
        let start = index
        var compact = true
        guard let objectShape = scanObject(depth: depth, compact: &compact) else {
            index = start
            return nil
        }
        let text: ArraySlice<UInt8>
        if !compact {
            text = compacted(start..<index)[...]
        } else if let owner, owner.count - (index - start) <= Self.maxSharedRest {
            text = owner[start..<index]
        } else {
            text = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))[...]
        }
        shape = objectShape
        size = text.count
        return .object(JSONObject(text: JSONObjectText(bytes: text)))
    }

    /// The most bytes of `owner` outside an object that a slice sharing its buffer may keep: an
    /// object that is most of a push body (a content state) shares it, while a small object in a
    /// large body is copied, so that it does not keep the whole body alive.
    private static var maxSharedRest: Int { 1024 }

    /// The shape of the canonical value at `index`, which is consumed; nil when it is not canonical.
    private mutating func scanValue(depth: Int, compact: inout Bool) -> UInt64? {
        guard let byte = current else { return nil }
        switch byte {
        case UInt8(ascii: "\""): return scanPlainString() == nil ? nil : JSONShape.string
        case UInt8(ascii: "{"): return scanObject(depth: depth, compact: &compact)
        case UInt8(ascii: "["): return scanArray(depth: depth, compact: &compact)
        case UInt8(ascii: "t"): return (try? expectLiteral("true")) == nil ? nil : JSONShape.bool
        case UInt8(ascii: "f"): return (try? expectLiteral("false")) == nil ? nil : JSONShape.bool
        case UInt8(ascii: "n"): return (try? expectLiteral("null")) == nil ? nil : JSONShape.null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return scanNumber() ? JSONShape.number : nil
        default: return nil
        }
    }

    /// Fingerprinted as `parseObject` does: members down to `JSONShape.maxDepth` below `shapeBase`.
    private mutating func scanObject(depth: Int, compact: inout Bool) -> UInt64? {
        guard depth < maxDepth else { return nil }
        let looksInside = depth - (shapeBase ?? depth) < JSONShape.maxDepth
        index += 1
        skipWhitespace(compact: &compact)
        if current == UInt8(ascii: "}") {
            index += 1
            return looksInside ? JSONShape.object(count: 0, memberSum: 0) : JSONShape.objectUnseen
        }
        var previousKey: Range<Int>?
        var count = 0
        var memberSum: UInt64 = 0
        while true {
            guard current == UInt8(ascii: "\""), let key = scanPlainString() else { return nil }
            if let previousKey, !precedes(previousKey, key) { return nil }
            previousKey = key
            skipWhitespace(compact: &compact)
            guard current == UInt8(ascii: ":") else { return nil }
            index += 1
            skipWhitespace(compact: &compact)
            guard let valueShape = scanValue(depth: depth + 1, compact: &compact) else { return nil }
            if looksInside {
                let keyHash = JSONShape.key(UnsafeBufferPointer(rebasing: bytes[key]))
                memberSum &+= JSONShape.member(key: keyHash, value: valueShape)
            }
            count += 1
            skipWhitespace(compact: &compact)
            switch current {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace(compact: &compact)
            case UInt8(ascii: "}"):
                index += 1
                return looksInside ? JSONShape.object(count: count, memberSum: memberSum) : JSONShape.objectUnseen
            default: return nil
            }
        }
    }

    /// Fingerprinted as `parseArray` does: by its first element.
    private mutating func scanArray(depth: Int, compact: inout Bool) -> UInt64? {
        guard depth < maxDepth else { return nil }
        let looksInside = depth - (shapeBase ?? depth) < JSONShape.maxDepth
        index += 1
        skipWhitespace(compact: &compact)
        if current == UInt8(ascii: "]") {
            index += 1
            return JSONShape.arrayUnseen
        }
        var firstShape: UInt64?
        while true {
            guard let elementShape = scanValue(depth: depth + 1, compact: &compact) else { return nil }
            if firstShape == nil { firstShape = elementShape }
            skipWhitespace(compact: &compact)
            switch current {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace(compact: &compact)
            case UInt8(ascii: "]"):
                index += 1
                guard looksInside, let firstShape else { return JSONShape.arrayUnseen }
                return JSONShape.array(first: firstShape)
            default: return nil
            }
        }
    }

    /// The bytes between the quotes of the string at `index`, consumed, when they are all written
    /// as they are (`JSONWriter.isPlainASCII`); nil for a string with an escape or any other byte.
    /// Being ASCII, equal text is also equal `String`s.
    private mutating func scanPlainString() -> Range<Int>? {
        let start = index + 1
        var i = plainWords(from: start)
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                index = i + 1
                return start..<i
            }
            guard JSONWriter.isPlainASCII(byte) else { return nil }
            i += 1
        }
        return nil
    }

    /// Whether the number at `index` (consumed) reads back to a value the serializer writes with the
    /// same bytes. `-0` and `-0.0` do not count: the first is written `0`, and the second equals
    /// `0.0` as a value but not as text.
    private mutating func scanNumber() -> Bool {
        // A short integer (never `-0`) and a short fraction are told from their digits; anything
        // else is read and its value checked.
        if shortInteger() != nil { return true }
        let start = index
        var i = bytes[start] == UInt8(ascii: "-") ? start + 1 : start
        let digitsStart = i
        while i < bytes.count, bytes[i] &- UInt8(ascii: "0") < 10 { i += 1 }
        if i < bytes.count, bytes[i] == UInt8(ascii: "."),
            let end = shortFractionEnd(negative: digitsStart > start, digits: digitsStart..<i)
        {
            index = end
            return true
        }
        guard let number = try? parseNumber() else { return false }
        switch number {
        case .int(let integer): return integer != 0 || bytes[start] != UInt8(ascii: "-")
        case .double(let double):
            return double != 0 || double.sign == .plus
                ? JSONWriter.writes(double, as: UnsafeBufferPointer(rebasing: bytes[start..<index])) : false
        default: return false
        }
    }

    /// The end of a number with a fraction (its integer digits are `digits`, a `.` follows) that
    /// `JSONWriter.writeDouble` writes back as it is, told from its digits alone; nil when that
    /// takes reading the value (`scanNumber` then does), also for some that would qualify.
    ///
    /// Those are numbers of 15 significant digits or fewer, no exponent, at least 0.001 and below
    /// 10^15, whose fraction ends in a digit other than 0 (or is a single 0 after a nonzero or
    /// positive integer part). No two decimals of up to 15 significant digits read as the same
    /// double, so the shortest form that reads back is these digits, and in this range it is
    /// written in fixed notation (`writeShortFraction`, Swift's `description`).
    private func shortFractionEnd(negative: Bool, digits: Range<Int>) -> Int? {
        guard !digits.isEmpty, digits.count <= 15 else { return nil }
        let wholeIsZero = bytes[digits.lowerBound] == UInt8(ascii: "0")
        guard !wholeIsZero || digits.count == 1 else { return nil }  // `01.5` is not JSON
        let fractionStart = digits.upperBound + 1
        var end = fractionStart
        while end < bytes.count, bytes[end] &- UInt8(ascii: "0") < 10 { end += 1 }
        guard end > fractionStart, end - fractionStart <= 15 else { return nil }
        if end < bytes.count, bytes[end] | 0x20 == UInt8(ascii: "e") { return nil }
        if end - fractionStart == 1 && bytes[fractionStart] == UInt8(ascii: "0") {
            // `5.0`, `0.0`; not `-0.0`, which equals `0.0` as a value.
            return wholeIsZero && negative ? nil : end
        }
        guard bytes[end - 1] != UInt8(ascii: "0") else { return nil }
        if wholeIsZero {
            var zeros = 0
            while bytes[fractionStart + zeros] == UInt8(ascii: "0") { zeros += 1 }
            return zeros <= 2 && end - fractionStart - zeros <= 15 ? end : nil
        }
        return digits.count + end - fractionStart <= 15 ? end : nil
    }

    /// Skips whitespace, noting in `compact` that there was some.
    private mutating func skipWhitespace(compact: inout Bool) {
        let start = index
        skipWhitespace()
        if index != start { compact = false }
    }

    /// Whether the bytes of `left` sort strictly before those of `right`.
    private func precedes(_ left: Range<Int>, _ right: Range<Int>) -> Bool {
        let shared = min(left.count, right.count)
        for offset in 0..<shared where bytes[left.lowerBound + offset] != bytes[right.lowerBound + offset] {
            return bytes[left.lowerBound + offset] < bytes[right.lowerBound + offset]
        }
        return left.count < right.count
    }

    /// The bytes of `range`, a valid JSON object, without the whitespace between its tokens.
    private func compacted(_ range: Range<Int>) -> [UInt8] {
        var text = JSONOutput(capacity: range.count)
        text.appendCompacting(json: UnsafeBufferPointer(rebasing: bytes[range]))
        return text.bytes()
    }
}
