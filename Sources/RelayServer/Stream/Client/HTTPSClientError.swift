public import RelayHTTP
public import RelayNet

/// Why a client request to the relay failed.
public enum HTTPSClientError: Error, Sendable, CustomStringConvertible {
    /// Connecting, the handshake (certificate checks included), or the socket failed.
    case tls(TLSError)
    /// The server's HTTP/1.1 response was malformed.
    case http(HTTP1ResponseParseError)
    /// The event stream broke the SSE parser's limits.
    case sse(SSEParseError)
    /// The server answered with something other than what the caller expects.
    case status(Int, body: String)
    /// No response within the time allowed.
    case timedOut(String)
    /// The server closed the connection before the response was complete.
    case closed

    public var description: String {
        switch self {
        case .tls(let error): return error.description
        case .http(let error): return error.description
        case .sse(let error): return error.description
        case .status(let status, let body): return "HTTP \(status): \(body.prefix(300))"
        case .timedOut(let what): return "timed out: \(what)"
        case .closed: return "the server closed the connection"
        }
    }
}
