/// A request's decoded header list after the checks of RFC 9113 §8.2 and §8.3.1. Anything that
/// fails is a malformed request: a stream error of type PROTOCOL_ERROR.
///
/// A class, immutable once validated: the head rides in its stream, and the stream is copied in
/// and out of the connection's table, where copying four strings and the header list cost a
/// dozen reference-count operations each time.
final class HTTP2RequestHead: Sendable {
    /// `:method`.
    let method: String
    /// `:path`, or empty for CONNECT (which has none).
    let path: String
    /// `:scheme`, absent only for CONNECT.
    let scheme: String?
    /// `:authority`, or the Host header when `:authority` is absent.
    let authority: String?
    /// The regular fields, in order.
    let headers: HTTPHeaders
    /// The declared content-length, which the DATA frames must match.
    let contentLength: Int?

    /// Header names that are meaningful only to a single HTTP/1.1 connection (RFC 9113 §8.2.2).
    static let connectionSpecific: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade",
    ]

    /// Validates a request's header list.
    init(validating fields: [(name: String, value: String)], streamID: UInt32) throws(HTTP2ProtocolError) {
        var method: String?
        var scheme: String?
        var path: String?
        var authority: String?
        var headers = HTTPHeaders()
        headers.reserveCapacity(fields.count)
        var contentLength: Int?
        var sawRegular = false
        for (name, value) in fields {
            try Self.checkValue(value, streamID: streamID)
            if name.utf8.first == UInt8(ascii: ":") {
                guard !sawRegular else { throw Self.malformed(streamID, "pseudo-header after a regular field") }
                switch name {
                case ":method": try Self.set(&method, value, streamID: streamID)
                case ":scheme": try Self.set(&scheme, value, streamID: streamID)
                case ":path": try Self.set(&path, value, streamID: streamID)
                case ":authority": try Self.set(&authority, value, streamID: streamID)
                default: throw Self.malformed(streamID, "unknown or response pseudo-header in a request")
                }
                continue
            }
            sawRegular = true
            try Self.checkRegular(name: name, value: value, streamID: streamID)
            if name == "content-length" {
                guard let length = Self.parseContentLength(value), contentLength == nil || contentLength == length
                else { throw Self.malformed(streamID, "invalid or conflicting content-length") }
                contentLength = length
            }
            // `checkRegular` refused uppercase letters.
            headers.add(lowercaseName: name, value)
        }
        guard let method, !method.isEmpty else { throw Self.malformed(streamID, "missing :method") }
        if method == "CONNECT" {
            guard authority != nil, scheme == nil, path == nil else {
                throw Self.malformed(streamID, "CONNECT needs :authority and no :scheme or :path")
            }
        } else {
            guard let scheme, !scheme.isEmpty else { throw Self.malformed(streamID, "missing :scheme") }
            guard let path, !path.isEmpty else { throw Self.malformed(streamID, "missing or empty :path") }
            // A request target is one token: RFC 9113 §8.3.1 refers to RFC 3986, whose grammar has
            // no whitespace or control character.
            guard !path.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7f }) else {
                throw Self.malformed(streamID, ":path with a space or control character")
            }
            if scheme == "http" || scheme == "https" {
                guard path.utf8.first == UInt8(ascii: "/") || (path == "*" && method == "OPTIONS") else {
                    throw Self.malformed(streamID, ":path is neither absolute nor * for OPTIONS")
                }
            }
        }
        self.method = method
        self.path = path ?? ""
        self.scheme = scheme
        self.authority = authority ?? headers["host"]
        self.headers = headers
        self.contentLength = contentLength
    }

    /// Validates trailers: regular fields only, under the same rules as request fields.
    static func validateTrailers(_ fields: [(name: String, value: String)], streamID: UInt32) throws(HTTP2ProtocolError)
    {
        for (name, value) in fields {
            guard name.utf8.first != UInt8(ascii: ":") else { throw malformed(streamID, "pseudo-header in trailers") }
            try checkValue(value, streamID: streamID)
            try checkRegular(name: name, value: value, streamID: streamID)
        }
    }

    /// The request as the routes see it.
    func request(body: [UInt8]) -> HTTPRequest {
        let target = HTTPRequest.splitTarget(path)
        return HTTPRequest(method: method, path: target.path, query: target.query, headers: headers, body: body)
    }

    private static func malformed(_ streamID: UInt32, _ reason: StaticString) -> HTTP2ProtocolError {
        .stream(streamID, .protocolError, reason)
    }

    private static func set(_ slot: inout String?, _ value: String, streamID: UInt32) throws(HTTP2ProtocolError) {
        guard slot == nil else { throw malformed(streamID, "duplicated pseudo-header") }
        slot = value
    }

    /// A regular field name: non-empty, lowercase visible ASCII without a colon; not
    /// connection-specific; TE only as "trailers".
    private static func checkRegular(name: String, value: String, streamID: UInt32) throws(HTTP2ProtocolError) {
        guard !name.isEmpty else { throw malformed(streamID, "empty field name") }
        let fault: StaticString? = UTF8Bytes.with(name) { bytes in
            for byte in bytes {
                switch byte {
                case 0x00...0x20, 0x7f...0xff, UInt8(ascii: ":"): return "field name with a forbidden character"
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): return "field name with an uppercase letter"
                default: continue
                }
            }
            return nil
        }
        if let fault { throw malformed(streamID, fault) }
        if name.utf8.count == 2, name == "te", value.lowercased() != "trailers" {
            throw malformed(streamID, "TE field with a value other than trailers")
        }
        guard !isConnectionSpecific(name) else { throw malformed(streamID, "connection-specific field") }
    }

    /// Whether `name` is in `connectionSpecific`. Only a name as long as one of them can be one,
    /// so the set is hashed rarely (this runs for every field of every request and response).
    static func isConnectionSpecific(_ name: String) -> Bool {
        switch name.utf8.count {
        case 7, 10, 16, 17: return connectionSpecific.contains(name)
        default: return false
        }
    }

    /// A field value: no NUL, CR or LF; no leading or trailing space or tab (RFC 9113 §8.2.1).
    private static func checkValue(_ value: String, streamID: UInt32) throws(HTTP2ProtocolError) {
        let fault: StaticString? = UTF8Bytes.with(value) { bytes in
            guard let base = bytes.baseAddress, let first = bytes.first, let last = bytes.last else { return nil }
            let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            if blank(first) || blank(last) { return "field value with outer whitespace" }
            let forbidden: (UInt8) -> Bool = { $0 == 0 || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }
            // Eight bytes at a time (a provider token is a few hundred): only a word holding a byte
            // below 0x20, as NUL, CR and LF are, is read byte by byte.
            var index = 0
            while index + 8 <= bytes.count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                if hasByteBelowSpace(word) {
                    for byte in UnsafeBufferPointer(start: base + index, count: 8) where forbidden(byte) {
                        return "field value with NUL, CR or LF"
                    }
                }
                index += 8
            }
            for byte in UnsafeBufferPointer(start: base + index, count: bytes.count - index) where forbidden(byte) {
                return "field value with NUL, CR or LF"
            }
            return nil
        }
        if let fault { throw malformed(streamID, fault) }
    }

    /// Whether one of `word`'s eight bytes is below 0x20. Never misses one; may flag a word that
    /// has none (a byte of 0x80 or more next to others), which the caller then reads byte by byte.
    static func hasByteBelowSpace(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        return (word &- ones &* 0x20) & ~word & (ones &* 0x80) != 0
    }

    /// A content-length of 1 to 18 digits.
    private static func parseContentLength(_ value: String) -> Int? {
        guard !value.isEmpty, value.utf8.count <= 18 else { return nil }
        var result = 0
        for byte in value.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            result = result * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return result
    }
}
