import CRelayLinux
import Glibc

/// One accepted TLS connection: a socket, a `TLSEngine` and the handler speaking HTTP over it.
///
/// Lives on one event loop. Output is buffered by `write` and encrypted and sent once at the end of the
/// loop pass, so a handler writing many small frames produces few records and few syscalls. Reads are
/// bounded per pass; past `writeHighWaterMark` of unsent output the connection stops reading until the
/// peer catches up (then `connectionWritable`). Nothing here allocates per-connection read buffers: the
/// loop's scratch buffers are shared, and both memory BIOs are recycled when idle.
// Sendable so it can be captured for `loop.execute`; state is loop-confined.
package final class Connection: @unchecked Sendable {
    /// The loop every call on this connection must be made on.
    package let loop: EventLoop
    /// Unique per server for the process's lifetime.
    package let id: UInt64
    /// The peer, e.g. `127.0.0.1:51234` or `[::1]:51234`.
    package let remoteAddress: String
    /// The peer's IP address alone, e.g. `127.0.0.1` or `::1`.
    package let remoteHost: String
    /// The protocol agreed by ALPN (`h2`, `http/1.1`), or nil if the client offered none we speak.
    package internal(set) var alpnProtocol: String?
    /// The client's certificate (DER), when client certificates are requested and one was presented.
    package internal(set) var peerCertificateDER: [UInt8]?
    /// The negotiated TLS version, e.g. `TLSv1.3`, once the handshake is done.
    package internal(set) var tlsVersion: String?

    enum Phase: Equatable {
        case handshaking
        case open
        /// `closeAfterFlush` was called: input is read and discarded, output drains, then the socket closes.
        case closingAfterFlush
        case closed
    }

    let socket: Socket
    let engine: TLSEngine
    let limits: ServerLimits
    var registration: LoopRegistration?
    var phase = Phase.handshaking
    var handler: (any ConnectionHandler)?
    let makeHandler: () -> any ConnectionHandler
    let onClose: (Connection, _ error: (any Error)?, _ wasReady: Bool) -> Void

    /// Application bytes not yet accepted by the TLS engine; `plaintextStart` marks what was consumed.
    var plaintext: [UInt8] = []
    var plaintextStart = 0
    /// SSL_write asked for peer input first; retry after the next read.
    var writeWaitsForInput = false
    /// SSL_read or the handshake asked for output to drain first (SSL_ERROR_WANT_WRITE); resume after a flush.
    var inputWaitsForOutput = false
    var flushScheduled = false
    var watchingWritable = false
    var readPaused = false
    var peerFinishedSending = false
    var shutdownRequested = false
    var writable = true
    var handshakeTimer: TimerID?
    var registeredEvents: UInt32 = 0

    init(
        socket: Socket, remoteAddress: String, remoteHost: String, id: UInt64, loop: EventLoop, engine: TLSEngine,
        limits: ServerLimits,
        makeHandler: @escaping () -> any ConnectionHandler,
        onClose: @escaping (Connection, (any Error)?, Bool) -> Void
    ) {
        self.socket = socket
        self.remoteAddress = remoteAddress
        self.remoteHost = remoteHost
        self.id = id
        self.loop = loop
        self.engine = engine
        self.limits = limits
        self.makeHandler = makeHandler
        self.onClose = onClose
    }

    /// Registers the socket and arms the handshake timeout; on failure the socket is closed.
    func start() throws(SystemError) {
        do {
            registration = try loop.register(fd: socket.fd, events: relay_EPOLLIN, source: self)
            registeredEvents = relay_EPOLLIN
        } catch {
            phase = .closed
            socket.close()
            throw error
        }
        let timeout = limits.handshakeTimeout
        handshakeTimer = loop.schedule(after: timeout) { [weak self] in
            guard let self, phase == .handshaking else { return }
            handshakeTimer = nil
            close(error: ConnectionError.handshakeTimedOut(seconds: timeout))
        }
    }

    // MARK: - Public API (on the loop)

    /// Queues application bytes; they are encrypted and sent at the end of the loop pass.
    /// Ignored once the connection is closing (`closeAfterFlush`) or closed.
    package func write(_ bytes: [UInt8]) {
        precondition(loop.inLoop, "Connection.write must be called on its loop")
        guard phase == .open, !bytes.isEmpty else { return }
        if plaintextStart == plaintext.count {
            plaintext.removeAll(keepingCapacity: true)
            plaintextStart = 0
        }
        plaintext.append(contentsOf: bytes)
        if writable && pendingWriteBytes > limits.writeHighWaterMark {
            writable = false
            updateInterest()
        }
        scheduleFlush()
    }

    /// Bytes written but not yet accepted by the kernel (plaintext awaiting encryption plus ciphertext).
    package var pendingWriteBytes: Int {
        (plaintext.count - plaintextStart) + engine.pendingCiphertext
    }

    /// False between passing `writeHighWaterMark` and draining below `writeLowWaterMark`; reading is
    /// paused meanwhile, and `connectionWritable` marks the end.
    package var isWritable: Bool { writable }

    /// True until the connection has closed.
    package var isOpen: Bool { phase != .closed }

    /// Closes now: one best-effort attempt to send what is pending and a close_notify, then the socket
    /// is closed (after lingering, when all of it went out: see `LingeringClose`) and
    /// `connectionClosed(error: nil)` is called.
    package func close() {
        precondition(loop.inLoop, "Connection.close must be called on its loop")
        close(error: nil)
    }

    /// Sends everything already written, then a close_notify, then closes. Further writes are ignored
    /// and further input is read and discarded, before the close and while the socket lingers after
    /// it (so the kernel does not reset the connection on close).
    package func closeAfterFlush() {
        precondition(loop.inLoop, "Connection.closeAfterFlush must be called on its loop")
        switch phase {
        case .handshaking: close(error: nil)
        case .open:
            phase = .closingAfterFlush
            scheduleFlush()
        case .closingAfterFlush, .closed: return
        }
    }

    /// Drops the connection at once, as a crashed or unplugged server would: nothing pending is
    /// sent, no close_notify, and the socket is closed with a TCP RST.
    package func reset() {
        precondition(loop.inLoop, "Connection.reset must be called on its loop")
        guard phase != .closed else { return }
        socket.setResetOnClose()
        close(error: ConnectionError.reset)
    }

    /// Starts graceful shutdown: an unfinished handshake is dropped; a ready connection's handler is
    /// told once through `shutdownRequested`.
    func requestShutdown() {
        switch phase {
        case .handshaking: close(error: nil)
        case .open:
            guard !shutdownRequested else { return }
            shutdownRequested = true
            handler?.shutdownRequested(self)
        case .closingAfterFlush, .closed: return
        }
    }

    // MARK: - Closing

    /// Tears the connection down exactly once; a nil `error` means orderly.
    func close(error: (any Error)?) {
        guard phase != .closed else { return }
        let wasReady = handler != nil
        let orderly = error == nil && phase != .handshaking
        if orderly {
            encryptPlaintext()  // may itself close the connection on a TLS failure
            guard phase != .closed else { return }
            engine.close()
        }
        phase = .closed
        if let handshakeTimer {
            loop.cancel(handshakeTimer)
            self.handshakeTimer = nil
        }
        if engine.pendingCiphertext > 0 { _ = sendCiphertext() }  // best effort: alert or close_notify
        if let registration {
            loop.deregister(registration)
            self.registration = nil
        }
        if orderly && !peerFinishedSending && engine.pendingCiphertext == 0 {
            // Everything went out: a FIN follows it, and what the peer still sends is read and dropped
            // for a while, so that its unread answer is not destroyed by a reset.
            LingeringClose.start(socket: socket, loop: loop, limits: limits)
        } else {
            socket.close()
        }
        plaintext = []
        let handler = self.handler
        self.handler = nil  // breaks the handler -> connection -> handler cycle
        handler?.connectionClosed(self, error: error)
        onClose(self, error, wasReady)  // last: the server may report "all closed" from here
    }
}

extension Connection: LoopSource {
    func handleEvents(_ events: UInt32) {
        if events & relay_EPOLLERR != 0 {
            close(error: socket.pendingError() ?? SystemError(call: "epoll_wait", errno: EIO))
            return
        }
        if events & relay_EPOLLOUT != 0 && phase != .closed { flushAtEndOfPass() }
        if events & (relay_EPOLLIN | relay_EPOLLHUP) != 0 && phase != .closed { readFromSocket() }
        if events & relay_EPOLLHUP != 0 && phase != .closed {
            // Hung up both ways while reads are paused or already finished: level-triggered HUP would be
            // reported forever, and pending output can no longer be delivered.
            close(error: SystemError(call: "send", errno: EPIPE))
        }
    }

    func loopStopping() {
        close(error: ConnectionError.eventLoopStopped)
    }
}
