import CRelayLinux
import Glibc

/// One listening socket registered on one loop; each accepted socket goes to `adopt`, which deals it out
/// to a loop. At most `acceptsPerPass` accepts per wake-up, so a connection flood cannot starve the
/// loop's other connections (level-triggered epoll reports the rest next pass).
final class Listener: LoopSource {
    /// The address actually bound (port filled in when 0 was asked for).
    let address: SocketAddress
    private let socket: Socket
    private let loop: EventLoop
    private let acceptsPerPass: Int
    private let adopt: (Socket, SocketAddress) -> Void
    private let onClose: () -> Void
    private var registration: LoopRegistration?
    private var resumeTimer: TimerID?

    /// How long accepting pauses after the process or system runs out of descriptors or memory.
    static let exhaustionPause = 0.1

    /// Wraps a bound, listening socket; `start` registers it.
    init(
        socket: Socket, address: SocketAddress, loop: EventLoop, acceptsPerPass: Int,
        adopt: @escaping (Socket, SocketAddress) -> Void, onClose: @escaping () -> Void
    ) {
        self.socket = socket
        self.address = address
        self.loop = loop
        self.acceptsPerPass = acceptsPerPass
        self.adopt = adopt
        self.onClose = onClose
    }

    /// Registers for incoming connections; on failure the socket is closed.
    func start() throws(SystemError) {
        do {
            registration = try loop.register(fd: socket.fd, events: relay_EPOLLIN, source: self)
        } catch {
            socket.close()
            throw error
        }
    }

    /// True until `close`.
    var isOpen: Bool { registration != nil }

    /// Stops listening and closes the socket (queued, not yet accepted connections are reset by the kernel).
    func close() {
        guard let registration else { return }
        self.registration = nil
        if let resumeTimer { loop.cancel(resumeTimer) }
        loop.deregister(registration)
        socket.close()
        onClose()
    }

    func handleEvents(_ events: UInt32) {
        for _ in 0..<acceptsPerPass {
            guard registration != nil else { return }
            do {
                guard let (client, peer) = try socket.accept() else { return }
                adopt(client, peer)
            } catch {
                // EMFILE/ENFILE/ENOBUFS/ENOMEM leave the connection queued and the socket readable, which a
                // level-triggered loop would report again at once: stop watching for a moment instead.
                pause()
                return
            }
        }
    }

    func loopStopping() {
        close()
    }

    private func pause() {
        guard let registration, resumeTimer == nil else { return }
        do {
            try loop.modify(registration, events: 0)
        } catch {
            close()
            return
        }
        resumeTimer = loop.schedule(after: Self.exhaustionPause) { [weak self] in
            guard let self, let registration = self.registration else { return }
            resumeTimer = nil
            do { try loop.modify(registration, events: relay_EPOLLIN) } catch { close() }
        }
    }
}
