/// Why RelayNet itself closed a connection (as opposed to a socket or TLS failure).
package enum ConnectionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The TLS handshake did not finish within `ServerLimits.handshakeTimeout` seconds.
    case handshakeTimedOut(seconds: Double)
    /// Graceful shutdown's grace period ran out with the connection still open.
    case shutdownGracePeriodExpired
    /// The event loop stopped while the connection was open.
    case eventLoopStopped
    /// The handler asked for a reset (`Connection.reset`): no TLS close, a TCP RST.
    case reset

    package var description: String {
        switch self {
        case .handshakeTimedOut(let seconds): "TLS handshake not finished within \(seconds) s"
        case .shutdownGracePeriodExpired: "closed when the shutdown grace period expired"
        case .eventLoopStopped: "closed because its event loop stopped"
        case .reset: "reset on request"
        }
    }
}
