/// Bounds that keep one peer, or many, from costing the server more than its share.
public struct ServerLimits: Sendable, Equatable {
    /// Seconds a connection may take to finish the TLS handshake before it is closed.
    package var handshakeTimeout: Double = 10
    /// Open connections across all loops; further ones are accepted and closed at once.
    public var maxConnections: Int = 10_000
    /// Open connections from one IP address; further ones from it are accepted and closed at once,
    /// so one client cannot take every slot. Default 1,000.
    public var maxConnectionsPerAddress: Int = 1_000
    /// Bytes read from a socket per `recv` (at most 64 KiB, the loop's shared read buffer).
    package var readChunkSize: Int = 16 * 1024
    /// Bytes read from one connection per loop pass, so a fast sender cannot starve its neighbours.
    package var maxReadBytesPerPass: Int = 64 * 1024
    /// Pending output above which the connection stops reading and reports itself not writable.
    package var writeHighWaterMark: Int = 256 * 1024
    /// Pending output below which a connection that hit the high-water mark is writable again.
    package var writeLowWaterMark: Int = 64 * 1024
    /// Connections accepted per listener per loop pass.
    package var acceptsPerPass: Int = 64
    /// The kernel's accept backlog per listening socket.
    package var listenBacklog: Int32 = 1024
    /// Seconds an orderly closed connection keeps reading (and dropping) what the peer still sends,
    /// after its last byte and a FIN went out (see `LingeringClose`).
    package var lingerSeconds: Double = 2
    /// Bytes an orderly closed connection reads and drops at most before it closes anyway.
    package var lingerBytes: Int = 1 << 20

    /// The defaults: 10 s handshakes, 10,000 connections, 16 KiB reads, 64 KiB per pass, 256/64 KiB
    /// write marks, lingering 2 s or 1 MiB after an orderly close.
    package init() {}

    /// The same limits with values out of range pulled back into it.
    var clamped: ServerLimits {
        var limits = self
        limits.handshakeTimeout = max(0.001, handshakeTimeout)
        limits.maxConnections = max(1, maxConnections)
        limits.maxConnectionsPerAddress = max(1, maxConnectionsPerAddress)
        limits.readChunkSize = min(max(1024, readChunkSize), 64 * 1024)
        limits.maxReadBytesPerPass = max(limits.readChunkSize, maxReadBytesPerPass)
        limits.writeLowWaterMark = max(0, writeLowWaterMark)
        limits.writeHighWaterMark = max(limits.writeLowWaterMark + 1, writeHighWaterMark)
        limits.acceptsPerPass = max(1, acceptsPerPass)
        limits.listenBacklog = max(1, listenBacklog)
        limits.lingerSeconds = lingerSeconds.isFinite ? min(max(0, lingerSeconds), 60) : 0
        limits.lingerBytes = max(0, lingerBytes)
        return limits
    }
}
