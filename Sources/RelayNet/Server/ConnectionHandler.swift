/// The application side of a connection (HTTP/1.1 or HTTP/2), created per connection once TLS is up.
///
/// Every call arrives on the connection's event loop, and the handler may call back into the connection
/// (`write`, `close`, ...) from inside any of them.
package protocol ConnectionHandler: AnyObject {
    /// The handshake finished; `connection.alpnProtocol` tells which protocol to speak.
    func connectionReady(_ connection: Connection)
    /// Decrypted application bytes arrived (at most one loop pass's worth at a time).
    func connection(_ connection: Connection, received bytes: [UInt8])
    /// Output that had piled up past `ServerLimits.writeHighWaterMark` drained below the low-water mark.
    func connectionWritable(_ connection: Connection)
    /// The connection closed; `error` is nil for an orderly close by either side. Called exactly once.
    func connectionClosed(_ connection: Connection, error: (any Error)?)
    /// Graceful shutdown began: finish what is in flight (HTTP/2: send GOAWAY), then `close` or
    /// `closeAfterFlush`. Connections still open when the grace period ends are closed.
    func shutdownRequested(_ connection: Connection)
}
