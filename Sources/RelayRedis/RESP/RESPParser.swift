/// Reads RESP3 (and RESP2) values from a byte stream that arrives in pieces: bytes in, values out,
/// "need more data" an ordinary result.
///
/// `append` adds received bytes; `next` returns the next complete value, nil when the buffer ends
/// inside one, or throws `RESPError` for bytes that are not RESP or break a `RESPLimits` bound. A
/// value cut short is parsed again from its start when more bytes come (values are small next to
/// a socket read, and a bulk string's length is known from its header, so its body is never
/// rescanned byte by byte). Attributes (`|`) are read and dropped, as the protocol allows.
public struct RESPParser: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0
    private let limits: RESPLimits

    /// A parser enforcing `limits`.
    public init(limits: RESPLimits = RESPLimits()) {
        self.limits = limits
    }

    /// Bytes received but not yet returned as values.
    package var bufferedByteCount: Int { buffer.count - start }

    /// Adds bytes read from the connection.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 << 10)
            start = 0
        } else if start > 64 << 10 && start * 2 > buffer.count {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete value, or nil when more bytes are needed.
    public mutating func next() throws(RESPError) -> RESPValue? {
        guard start < buffer.count else { return nil }
        var cursor = Cursor(bytes: buffer, position: start, origin: start, limits: limits)
        guard let value = try cursor.value(depth: 0) else {
            if buffer.count - start > limits.maxBufferedBytes {
                throw RESPError(reason: .bufferTooLarge, offset: buffer.count - start)
            }
            return nil
        }
        start = cursor.position
        return value
    }
}

/// One parse attempt over the buffer; nil from any step means the value is not complete yet.
private struct Cursor {
    let bytes: [UInt8]
    var position: Int
    let origin: Int
    let limits: RESPLimits

    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")

    private func fail(_ reason: RESPError.Reason, at index: Int? = nil) -> RESPError {
        RESPError(reason: reason, offset: (index ?? position) - origin)
    }

    mutating func value(depth: Int) throws(RESPError) -> RESPValue? {
        guard position < bytes.count else { return nil }
        let typeAt = position
        let type = bytes[position]
        guard let line = try line() else { return nil }
        switch type {
        case UInt8(ascii: "+"): return .simpleString(String(decoding: line, as: UTF8.self))
        case UInt8(ascii: "-"): return .error(String(decoding: line, as: UTF8.self))
        case UInt8(ascii: ":"): return .integer(try integer(line, at: typeAt))
        case UInt8(ascii: "("):
            guard !line.isEmpty, line.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 || $0 == 0x2D || $0 == 0x2B }) else {
                throw fail(.badInteger, at: typeAt)
            }
            return .bigNumber(String(decoding: line, as: UTF8.self))
        case UInt8(ascii: "_"):
            guard line.isEmpty else { throw fail(.badNull, at: typeAt) }
            return .null
        case UInt8(ascii: "#"):
            if line.elementsEqual([UInt8(ascii: "t")]) { return .boolean(true) }
            if line.elementsEqual([UInt8(ascii: "f")]) { return .boolean(false) }
            throw fail(.badBoolean, at: typeAt)
        case UInt8(ascii: ","):
            return .double(try double(line, at: typeAt))
        case UInt8(ascii: "$"), UInt8(ascii: "!"), UInt8(ascii: "="):
            let body: [UInt8]
            switch try bulk(line, at: typeAt) {
            case .incomplete: return nil
            case .null: return .null
            case .body(let bytes): body = bytes
            }
            switch type {
            case UInt8(ascii: "$"): return .bulkString(body)
            case UInt8(ascii: "!"): return .error(String(decoding: body, as: UTF8.self))
            default:
                guard body.count >= 4, body[3] == UInt8(ascii: ":") else { throw fail(.badVerbatim, at: typeAt) }
                return .verbatim(format: String(decoding: body[0..<3], as: UTF8.self), text: Array(body[4...]))
            }
        case UInt8(ascii: "*"), UInt8(ascii: "~"), UInt8(ascii: ">"), UInt8(ascii: "%"), UInt8(ascii: "|"):
            let count = try integer(line, at: typeAt)
            if count == -1 && type == UInt8(ascii: "*") { return .null }  // RESP2 null array
            guard count >= 0 else { throw fail(.badLength, at: typeAt) }
            guard count <= limits.maxAggregateCount else { throw fail(.aggregateTooLarge, at: typeAt) }
            guard depth < limits.maxDepth else { throw fail(.tooDeep, at: typeAt) }
            let isPairs = type == UInt8(ascii: "%") || type == UInt8(ascii: "|")
            var elements: [RESPValue] = []
            // Reserve only what the received bytes could hold (3 bytes per element at least), so a
            // hostile count cannot allocate ahead of the data.
            elements.reserveCapacity(min(Int(count) * (isPairs ? 2 : 1), (bytes.count - position) / 3))
            for _ in 0..<(Int(count) * (isPairs ? 2 : 1)) {
                guard let element = try value(depth: depth + 1) else { return nil }
                elements.append(element)
            }
            switch type {
            case UInt8(ascii: "*"): return .array(elements)
            case UInt8(ascii: "~"): return .set(elements)
            case UInt8(ascii: ">"): return .push(elements)
            case UInt8(ascii: "%"):
                return .map(
                    stride(from: 0, to: elements.count, by: 2).map {
                        RESPPair(key: elements[$0], value: elements[$0 + 1])
                    })
            default:
                // Attributes describe the value that follows: drop them. Each counts as a level, so a
                // chain of attributes is bounded like nesting is.
                return try value(depth: depth + 1)
            }
        default:
            throw fail(.unknownType, at: typeAt)
        }
    }

    /// The bytes after the type byte up to CRLF, advancing past the CRLF; nil when CRLF has not arrived.
    private mutating func line() throws(RESPError) -> ArraySlice<UInt8>? {
        let lineStart = position + 1
        var index = lineStart
        let limit = min(bytes.count, position + limits.maxLineBytes)
        while index < limit {
            if bytes[index] == Self.cr {
                guard index + 1 < bytes.count else { return nil }
                guard bytes[index + 1] == Self.lf else { throw fail(.badLineEnding, at: index) }
                position = index + 2
                return bytes[lineStart..<index]
            }
            if bytes[index] == Self.lf { throw fail(.badLineEnding, at: index) }
            index += 1
        }
        if limit < bytes.count || bytes.count - position >= limits.maxLineBytes { throw fail(.lineTooLong) }
        return nil
    }

    private enum Bulk {
        case incomplete
        case null
        case body([UInt8])
    }

    /// The bulk body of the length on `line`, RESP2's `$-1` null, or word that the body has not all arrived.
    private mutating func bulk(_ line: ArraySlice<UInt8>, at typeAt: Int) throws(RESPError) -> Bulk {
        let length = try integer(line, at: typeAt)
        if length == -1 && bytes[typeAt] == UInt8(ascii: "$") { return .null }
        guard length >= 0 else { throw fail(.badLength, at: typeAt) }
        guard length <= limits.maxBulkBytes else { throw fail(.bulkTooLarge, at: typeAt) }
        let end = position + Int(length)
        guard end + 2 <= bytes.count else { return .incomplete }
        guard bytes[end] == Self.cr, bytes[end + 1] == Self.lf else { throw fail(.badLineEnding, at: end) }
        let body = Array(bytes[position..<end])
        position = end + 2
        return .body(body)
    }

    private func integer(_ line: ArraySlice<UInt8>, at typeAt: Int) throws(RESPError) -> Int64 {
        guard line.count <= 20, let value = Int64(String(decoding: line, as: UTF8.self)) else {
            throw fail(.badInteger, at: typeAt)
        }
        return value
    }

    private func double(_ line: ArraySlice<UInt8>, at typeAt: Int) throws(RESPError) -> Double {
        let text = String(decoding: line, as: UTF8.self)
        switch text {
        case "inf": return .infinity
        case "-inf": return -.infinity
        case "nan", "-nan": return .nan
        default:
            guard !text.isEmpty, text.count <= 64,
                text.utf8.allSatisfy({
                    ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2D || $0 == 0x2B || $0 == 0x65 || $0 == 0x45
                }),
                let value = Double(text)
            else { throw fail(.badDouble, at: typeAt) }
            return value
        }
    }
}
