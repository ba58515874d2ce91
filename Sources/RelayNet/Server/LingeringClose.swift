import CRelayLinux

/// The last moments of an orderly closed connection's socket, after its connection is gone.
///
/// Closing a socket whose peer is still sending makes the kernel answer with a reset, and a reset
/// can destroy the response the peer has not read yet: a client uploading a body the server
/// refused (`413`) would see a broken connection instead of the answer. So an orderly close sends
/// a FIN after the last byte, then reads and drops whatever still arrives until the peer closes
/// its side, `lingerBytes` have come, or `lingerSeconds` have passed, and only then closes the
/// descriptor. The connection itself has already closed and been counted as such.
final class LingeringClose: LoopSource {
    private let socket: Socket
    private let loop: EventLoop
    private var registration: LoopRegistration?
    private var timer: TimerID?
    private var remainingBytes: Int
    private var isClosed = false

    /// Takes over `socket`, already deregistered from `loop`; closes it at once if the loop
    /// refuses it or the limits allow no lingering.
    static func start(socket: Socket, loop: EventLoop, limits: ServerLimits) {
        socket.shutdownWrite()
        guard limits.lingerSeconds > 0, limits.lingerBytes > 0 else {
            socket.close()
            return
        }
        let lingering = LingeringClose(socket: socket, loop: loop, remainingBytes: limits.lingerBytes)
        do {
            lingering.registration = try loop.register(fd: socket.fd, events: relay_EPOLLIN, source: lingering)
        } catch {
            socket.close()
            return
        }
        lingering.timer = loop.schedule(after: limits.lingerSeconds) { [weak lingering] in
            lingering?.timer = nil
            lingering?.finish()
        }
    }

    private init(socket: Socket, loop: EventLoop, remainingBytes: Int) {
        self.socket = socket
        self.loop = loop
        self.remainingBytes = remainingBytes
    }

    func handleEvents(_ events: UInt32) {
        guard events & (relay_EPOLLIN | relay_EPOLLHUP | relay_EPOLLERR) != 0 else { return }
        // Level-triggered: what is left after one buffer's worth is reported again on the next pass.
        let buffer = loop.ioBuffer
        let result: IOResult
        do {
            result = try socket.read(
                into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<min(buffer.count, remainingBytes)]))
        } catch {
            return finish()
        }
        switch result {
        case .wouldBlock:
            if events & (relay_EPOLLHUP | relay_EPOLLERR) != 0 { finish() }
        case .processed(0):
            finish()
        case .processed(let count):
            remainingBytes -= count
            if remainingBytes <= 0 { finish() }
        }
    }

    func loopStopping() { finish() }

    /// Closes the descriptor, once.
    private func finish() {
        guard !isClosed else { return }
        isClosed = true
        if let timer {
            loop.cancel(timer)
            self.timer = nil
        }
        if let registration {
            loop.deregister(registration)
            self.registration = nil
        }
        socket.close()
    }
}
