/// The client side of HTTP/1.1: response bytes in, the head and body pieces out, for clients that
/// stream a response (the event stream's terminal renderer, tests, the load generator).
///
/// Handles `content-length`, `transfer-encoding: chunked` (chunk extensions and trailers are
/// skipped) and bodies that run until the connection closes (call `finish()` at end of stream).
/// Interim 1xx responses are skipped. Sizes are bounded by `Limits`; anything malformed is a
/// typed error carrying the offending text.
package struct HTTP1ResponseParser: Sendable {
    /// What the bytes fed so far completed, in order.
    package enum Event: Sendable, Equatable {
        /// The final response's status and headers.
        case head(status: Int, headers: HTTPHeaders)
        /// A piece of the body (never empty).
        case body([UInt8])
        /// The body is complete.
        case end
    }

    /// Bounds on what a server may send.
    package struct Limits: Sendable, Equatable {
        /// Bytes of status line and header section.
        package var maxHeadBytes = 65_536
        /// Header fields in one head.
        package var maxHeaderFields = 100

        /// The defaults.
        package init() {}
    }

    private enum State: Sendable {
        case head
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd(crlfLeft: Int)
        case trailers
        case untilClose
        case done
    }

    package let limits: Limits
    private let isHeadRequest: Bool
    private var state = State.head
    private var line: [UInt8] = []

    /// A parser for the response to one request; `isHeadRequest` means the response has no body.
    package init(limits: Limits = Limits(), isHeadRequest: Bool = false) {
        self.limits = limits
        self.isHeadRequest = isHeadRequest
    }

    /// Whether the whole response has been read.
    package var isComplete: Bool {
        if case .done = state { return true }
        return false
    }

    /// Consumes `bytes` and returns the events they complete.
    package mutating func feed(_ bytes: [UInt8]) throws(HTTP1ResponseParseError) -> [Event] {
        var events: [Event] = []
        var index = 0
        while index < bytes.count {
            switch state {
            case .head:
                guard let end = bytes[index...].firstIndex(of: Self.lf) else {
                    try appendToHead(bytes[index...])
                    index = bytes.count
                    continue
                }
                try appendToHead(bytes[index...end])
                index = end + 1
                if line.count >= 4,
                    line.suffix(4).elementsEqual(Self.crlfcrlf) || line.suffix(2).elementsEqual([Self.lf, Self.lf])
                {
                    let head = line
                    line.removeAll(keepingCapacity: true)
                    try startBody(head: head, events: &events)
                }
            case .fixed(let remaining):
                let take = min(remaining, bytes.count - index)
                events.append(.body(Array(bytes[index..<index + take])))
                index += take
                if remaining == take {
                    state = .done
                    events.append(.end)
                } else {
                    state = .fixed(remaining: remaining - take)
                }
            case .chunkSize, .trailers:
                guard let end = bytes[index...].firstIndex(of: Self.lf) else {
                    try appendToLine(bytes[index...])
                    index = bytes.count
                    continue
                }
                try appendToLine(bytes[index..<end])
                index = end + 1
                if line.last == Self.cr { line.removeLast() }
                let text = line
                line.removeAll(keepingCapacity: true)
                try endLine(text, events: &events)
            case .chunkData(let remaining):
                let take = min(remaining, bytes.count - index)
                events.append(.body(Array(bytes[index..<index + take])))
                index += take
                state = remaining == take ? .chunkDataEnd(crlfLeft: 2) : .chunkData(remaining: remaining - take)
            case .chunkDataEnd(let left):
                let expected = left == 2 ? Self.cr : Self.lf
                if left == 2, bytes[index] == Self.lf {
                    state = .chunkSize  // a bare LF is tolerated, as most clients do
                } else if bytes[index] == expected {
                    state = left == 2 ? .chunkDataEnd(crlfLeft: 1) : .chunkSize
                } else {
                    throw HTTP1ResponseParseError(.badChunk, "expected CRLF after chunk data, got byte \(bytes[index])")
                }
                index += 1
            case .untilClose:
                events.append(.body(Array(bytes[index...])))
                index = bytes.count
            case .done:
                throw HTTP1ResponseParseError(.trailingBytes, "\(bytes.count - index) bytes after the response ended")
            }
        }
        return events
    }

    /// The connection ended: completes a body that runs until close, else fails if the response
    /// was cut short.
    package mutating func finish() throws(HTTP1ResponseParseError) -> [Event] {
        switch state {
        case .untilClose:
            state = .done
            return [.end]
        case .done:
            return []
        default:
            throw HTTP1ResponseParseError(.truncated, "the connection closed in the middle of the response")
        }
    }

    // MARK: - Private

    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")
    private static let crlfcrlf: [UInt8] = [13, 10, 13, 10]

    private mutating func appendToHead(_ bytes: ArraySlice<UInt8>) throws(HTTP1ResponseParseError) {
        guard line.count + bytes.count <= limits.maxHeadBytes else {
            throw HTTP1ResponseParseError(.headTooLarge, "more than \(limits.maxHeadBytes) bytes of head")
        }
        line.append(contentsOf: bytes)
    }

    private mutating func appendToLine(_ bytes: ArraySlice<UInt8>) throws(HTTP1ResponseParseError) {
        guard line.count + bytes.count <= 4096 else {
            throw HTTP1ResponseParseError(.badChunk, "a chunk-size or trailer line longer than 4096 bytes")
        }
        line.append(contentsOf: bytes)
    }

    private mutating func startBody(head bytes: [UInt8], events: inout [Event]) throws(HTTP1ResponseParseError) {
        let (status, headers) = try Self.parseHead(bytes, maxFields: limits.maxHeaderFields)
        if (100...199).contains(status) { return }  // interim: the final head follows
        events.append(.head(status: status, headers: headers))
        if isHeadRequest || status == 204 || status == 304 {
            state = .done
            events.append(.end)
            return
        }
        if let coding = headers["transfer-encoding"] {
            guard coding.lowercased().split(separator: ",").last?.trimmingCharacters(in: " \t") == "chunked" else {
                throw HTTP1ResponseParseError(.badFraming, "unsupported transfer-encoding \(coding.prefix(80))")
            }
            state = .chunkSize
        } else if let lengthText = headers["content-length"] {
            guard let length = Int(lengthText.trimmingCharacters(in: " \t")), length >= 0 else {
                throw HTTP1ResponseParseError(.badFraming, "content-length \(lengthText.prefix(40)) is not a length")
            }
            if length == 0 {
                state = .done
                events.append(.end)
            } else {
                state = .fixed(remaining: length)
            }
        } else {
            state = .untilClose
        }
    }

    private mutating func endLine(_ text: [UInt8], events: inout [Event]) throws(HTTP1ResponseParseError) {
        if case .trailers = state {
            if text.isEmpty {
                state = .done
                events.append(.end)
            }
            return
        }
        let digits = text.prefix { $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
        guard !digits.isEmpty, digits.count <= 15, let size = Int(String(decoding: digits, as: UTF8.self), radix: 16)
        else {
            throw HTTP1ResponseParseError(
                .badChunk, "chunk size \(String(decoding: text.prefix(40), as: UTF8.self)) is not hexadecimal")
        }
        state = size == 0 ? .trailers : .chunkData(remaining: size)
    }

    /// Status code and fields of a head (status line, fields, empty line).
    static func parseHead(_ bytes: [UInt8], maxFields: Int) throws(HTTP1ResponseParseError) -> (Int, HTTPHeaders) {
        // Split on bytes: as a String, CR LF is one Character and would not split on LF.
        var lines = bytes.split(separator: Self.lf, omittingEmptySubsequences: false).map { line in
            String(decoding: line.last == Self.cr ? line.dropLast() : line, as: UTF8.self)[...]
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let statusLine = lines.first else { throw HTTP1ResponseParseError(.badStatusLine, "empty head") }
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let status = Int(parts[1]),
            (100...999).contains(status)
        else {
            throw HTTP1ResponseParseError(.badStatusLine, String(statusLine.prefix(80)))
        }
        guard lines.count - 1 <= maxFields else {
            throw HTTP1ResponseParseError(.headTooLarge, "\(lines.count - 1) header fields, at most \(maxFields)")
        }
        var headers = HTTPHeaders()
        for field in lines.dropFirst() {
            guard let colon = field.firstIndex(of: ":"), colon > field.startIndex else {
                throw HTTP1ResponseParseError(.badHeader, String(field.prefix(80)))
            }
            let name = field[..<colon]
            guard !name.contains(" "), !name.contains("\t") else {
                throw HTTP1ResponseParseError(.badHeader, String(field.prefix(80)))
            }
            headers.add(name.lowercased(), field[field.index(after: colon)...].trimmingCharacters(in: " \t"))
        }
        return (status, headers)
    }
}

extension Substring {
    /// The text without leading and trailing characters in `set`.
    fileprivate func trimmingCharacters(in set: String) -> String {
        let characters = Set(set)
        return String(self.drop { characters.contains($0) }.reversed().drop { characters.contains($0) }.reversed())
    }
}

extension String {
    /// The text without leading and trailing characters in `set`.
    fileprivate func trimmingCharacters(in set: String) -> String { self[...].trimmingCharacters(in: set) }
}
