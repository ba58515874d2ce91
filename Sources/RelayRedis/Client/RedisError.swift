/// Why a Redis command did not produce a reply value.
package enum RedisError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The server answered with an error (`ERR ...`, `WRONGTYPE ...`): the command ran and failed, or
    /// was refused; it is the command's answer, not a transport problem.
    case server(String)
    /// The connection broke after the command was sent and it is not safe to send again: it may or
    /// may not have been applied.
    case connectionLost(String)
    /// No answer before the command's deadline (it may still be applied if it reached a server).
    case timedOut
    /// The server sent bytes that are not RESP; the connection was closed.
    case protocolViolation(RESPError)
    /// `MOVED`/`ASK` redirects went on past the limit.
    case tooManyRedirects(String)
    /// A topology reply could not be used.
    case topology(String)
    /// The client was shut down.
    case shutDown

    package var description: String {
        switch self {
        case .server(let text): "Redis error: \(text)"
        case .connectionLost(let detail):
            "connection lost after the command was sent (it may have been applied): \(detail)"
        case .timedOut: "no reply before the command's deadline"
        case .protocolViolation(let error): "\(error)"
        case .tooManyRedirects(let last): "too many cluster redirects (last: \(last))"
        case .topology(let detail): "cluster topology: \(detail)"
        case .shutDown: "the Redis client was shut down"
        }
    }
}
