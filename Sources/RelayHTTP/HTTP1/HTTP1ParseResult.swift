/// What `HTTP1RequestParser.next()` hands back.
public enum HTTP1ParseResult: Sendable {
    /// A complete request, head and body, with what the connection needs to know about it.
    case request(HTTPRequest, HTTP1RequestInfo)
    /// The buffered bytes hold no complete request yet: feed more.
    case needMore
    /// The request is invalid: answer `error.status` with `Connection: close`, then close.
    case error(HTTP1ParseError)
}

/// Connection-level facts about one HTTP/1.x request.
public struct HTTP1RequestInfo: Sendable, Equatable {
    /// 0 for HTTP/1.0, 1 for HTTP/1.1 (and any later 1.x, which is treated as 1.1).
    package var minorVersion: Int
    /// Whether the connection may carry another request after this one's response: HTTP/1.1 unless
    /// `Connection: close`; HTTP/1.0 only with `Connection: keep-alive` (RFC 9112 §9.3).
    package var keepAlive: Bool
    /// The request carried `Expect: 100-continue` (HTTP/1.1 only; HTTP/1.0 expectations are ignored).
    package var expectsContinue: Bool

    /// Creates the facts for one request.
    package init(minorVersion: Int, keepAlive: Bool, expectsContinue: Bool = false) {
        self.minorVersion = minorVersion
        self.keepAlive = keepAlive
        self.expectsContinue = expectsContinue
    }

    /// Whether the response may use chunked transfer coding (HTTP/1.0 clients do not know it).
    package var acceptsChunked: Bool { minorVersion >= 1 }
}
