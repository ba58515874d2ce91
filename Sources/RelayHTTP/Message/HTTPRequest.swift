#if canImport(Glibc)
    import Glibc
#endif

/// A complete request as the routes see it, whichever HTTP version carried it.
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, ... exactly as sent.
    public var method: String
    /// The path without the query, percent-decoding not applied.
    public var path: String
    /// The query string after `?`, without the `?`; empty when there is none.
    package var query: String
    /// Regular header fields (HTTP/2 pseudo-headers are not included).
    package var headers: HTTPHeaders
    /// The whole body.
    public var body: [UInt8]

    public init(
        method: String, path: String, query: String = "", headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// Splits a request target such as `/v1/pushes?limit=5` into path and query.
    public static func splitTarget(_ target: String) -> (path: String, query: String) {
        // A byte search: `firstIndex(of: Character)` walks grapheme clusters, which cost more than
        // the rest of a request's parsing, and even the UTF-8 view's generic search took about
        // thirty instructions a byte; `memchr` over the contiguous bytes takes a few.
        let offset = UTF8Bytes.with(target) { bytes -> Int? in
            guard let base = bytes.baseAddress, let found = memchr(base, Int32(UInt8(ascii: "?")), bytes.count) else {
                return nil
            }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
        guard let offset else { return (target, "") }
        let mark = target.utf8.index(target.utf8.startIndex, offsetBy: offset)
        return (String(target[..<mark]), String(target[target.utf8.index(after: mark)...]))
    }

    /// The query's parameters, percent-decoded, in order (`+` decodes to a space).
    package var queryItems: [(name: String, value: String)] {
        guard !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { part in
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.percentDecode(String(pieces[0]))
            let value = pieces.count > 1 ? Self.percentDecode(String(pieces[1])) : ""
            return (name, value)
        }
    }

    /// The first value of query parameter `name`.
    package func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// Decodes `%XX` escapes and `+`; malformed escapes are kept as written.
    package static func percentDecode(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), iterator.count >= 2,
                let high = hexValue(iterator[iterator.startIndex]),
                let low = hexValue(iterator[iterator.startIndex + 1])
            {
                bytes.append(high << 4 | low)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
