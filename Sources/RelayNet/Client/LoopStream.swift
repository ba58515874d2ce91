import CRelayLinux
import Glibc

/// The owner of an outbound `LoopStream`: told when it is up, what arrives, and when it ends.
///
/// Every call arrives on the stream's loop; the delegate may call back into the stream from any of them.
package protocol LoopStreamDelegate: AnyObject {
    /// The TCP connection (and TLS handshake, when asked for) completed; bytes written so far go out now.
    func streamConnected(_ stream: LoopStream)
    /// Bytes arrived (decrypted, for TLS).
    func stream(_ stream: LoopStream, received bytes: [UInt8])
    /// The stream closed, exactly once: `error` is nil for an orderly end (our `close`, or the peer's FIN).
    func streamClosed(_ stream: LoopStream, error: (any Error)?)
}

/// One outbound TCP connection on an event loop, plain or TLS: the client counterpart of `Connection`
/// for protocols the relay speaks to other servers (Redis).
///
/// The connect is non-blocking and watched by the loop; bytes written before it completes are queued
/// and sent once it does (so a client can pipeline its greeting). Output is sent once per loop pass,
/// like `Connection`'s. TLS uses a client-mode `TLSEngine`, verifying the server's chain and name.
// Sendable so it can be captured for `loop.execute`; state is loop-confined.
package final class LoopStream: @unchecked Sendable {
    /// Why a stream failed before or besides a socket or TLS error.
    package enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// Neither connected nor handshaken within the timeout.
        case connectTimedOut(seconds: Double)
        /// The peer ended the stream during the TLS handshake.
        case closedDuringHandshake

        package var description: String {
            switch self {
            case .connectTimedOut(let seconds): "not connected within \(seconds) s"
            case .closedDuringHandshake: "the server closed the connection during the TLS handshake"
            }
        }
    }

    private enum Phase {
        case connecting, handshaking, open, closed
    }

    /// The loop every call must be made on.
    package let loop: EventLoop
    /// The server, `host:port`.
    package let peer: String
    /// Told about the stream's life; held weakly (the owner holds the stream).
    package weak var delegate: (any LoopStreamDelegate)?

    private let socket: Socket
    private let engine: TLSEngine?
    private var registration: LoopRegistration?
    private var registeredEvents: UInt32 = 0
    private var phase = Phase.connecting
    private var output: [UInt8] = []
    private var outputStart = 0
    private var flushScheduled = false
    private var timer: TimerID?

    private init(loop: EventLoop, peer: String, socket: Socket, engine: TLSEngine?) {
        self.loop = loop
        self.peer = peer
        self.socket = socket
        self.engine = engine
    }

    /// Starts connecting to `address` (an IP literal and port: names would need a blocking lookup);
    /// `tls` with a server name turns on TLS verified against that name. Must be called on `loop`.
    /// Throws only for what fails at once (no descriptor, bad TLS setup); everything later, including
    /// a refused connect, reaches `streamClosed`.
    package static func connect(
        to address: SocketAddress, tls: (context: TLSClientContext, serverName: String)? = nil, on loop: EventLoop,
        timeout: Double, delegate: any LoopStreamDelegate
    ) throws -> LoopStream {
        precondition(loop.inLoop, "LoopStream.connect must be called on its loop")
        let engine = try tls.map { settings throws(TLSError) in
            try TLSEngine(client: settings.context, host: settings.serverName)
        }
        let fd = try syscall("socket") {
            Glibc.socket(
                address.family,
                Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        let socket = Socket(fd: fd)
        let stream = LoopStream(loop: loop, peer: address.description, socket: socket, engine: engine)
        stream.delegate = delegate
        do {
            try socket.setNoDelay()
            let status = try address.withSockAddr { pointer, length in Glibc.connect(fd, pointer, length) }
            if status != 0 && relay_errno() != EINPROGRESS {
                throw SystemError(call: "connect \(address)", errno: relay_errno())
            }
            stream.registration = try loop.register(fd: fd, events: relay_EPOLLOUT, source: stream)
            stream.registeredEvents = relay_EPOLLOUT
        } catch {
            socket.close()
            throw error
        }
        stream.timer = loop.schedule(after: timeout) { [weak stream] in
            guard let stream, stream.phase == .connecting || stream.phase == .handshaking else { return }
            stream.timer = nil
            stream.close(error: Failure.connectTimedOut(seconds: timeout))
        }
        return stream
    }

    /// True until the stream has closed.
    package var isOpen: Bool { phase != .closed }

    /// True once connected (and handshaken) and not yet closed.
    package var isConnected: Bool { phase == .open }

    /// Bytes written but not yet handed to the kernel.
    package var pendingWriteBytes: Int { output.count - outputStart + (engine?.pendingCiphertext ?? 0) }

    /// Queues bytes to send at the end of the loop pass (after the connect, if it is still under way).
    package func write(_ bytes: [UInt8]) {
        precondition(loop.inLoop, "LoopStream.write must be called on its loop")
        guard phase != .closed, !bytes.isEmpty else { return }
        if outputStart == output.count {
            output.removeAll(keepingCapacity: output.capacity <= 1 << 20)
            outputStart = 0
        }
        output.append(contentsOf: bytes)
        scheduleFlush()
    }

    /// Closes now, dropping unsent output; `streamClosed(error: nil)` follows at once.
    package func close() {
        precondition(loop.inLoop, "LoopStream.close must be called on its loop")
        close(error: nil)
    }

    // MARK: - Private

    private func close(error: (any Error)?) {
        guard phase != .closed else { return }
        phase = .closed
        if let timer {
            loop.cancel(timer)
            self.timer = nil
        }
        if let registration {
            loop.deregister(registration)
            self.registration = nil
        }
        socket.close()
        output = []
        outputStart = 0
        delegate?.streamClosed(self, error: error)
    }

    private func connected() {
        if let pending = socket.pendingError() {
            close(error: SystemError(call: "connect \(peer)", errno: pending.errno))
            return
        }
        if let engine {
            phase = .handshaking
            advanceHandshake(engine)
        } else {
            becameOpen()
        }
        if phase != .closed { scheduleFlush() }
    }

    private func becameOpen() {
        phase = .open
        if let timer {
            loop.cancel(timer)
            self.timer = nil
        }
        delegate?.streamConnected(self)
    }

    private func advanceHandshake(_ engine: TLSEngine) {
        switch engine.handshake() {
        case .complete: becameOpen()
        case .needsInput, .needsOutputDrained: scheduleFlush()
        case .failed(let error):
            _ = sendCiphertext(engine)
            let reason = engine.verifyFailure.map { TLSError(operation: "verify certificate of \(peer)", reason: $0) }
            close(error: reason ?? error)
        }
    }

    private func readFromSocket() {
        let buffer = loop.ioBuffer
        var budget = 256 * 1024
        while budget > 0 && phase != .closed {
            let result: IOResult
            do {
                result = try socket.read(into: buffer)
            } catch {
                close(error: error)
                return
            }
            switch result {
            case .wouldBlock:
                return
            case .processed(0):
                close(error: phase == .handshaking ? Failure.closedDuringHandshake : nil)
                return
            case .processed(let count):
                budget -= count
                let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                if let engine {
                    engine.receive(bytes)
                    decrypt(engine)
                } else {
                    delegate?.stream(self, received: [UInt8](bytes))
                }
            }
        }
    }

    private func decrypt(_ engine: TLSEngine) {
        if phase == .handshaking { advanceHandshake(engine) }
        let buffer = loop.plaintextBuffer
        while phase == .open {
            switch engine.read(into: buffer) {
            case .bytes(let count):
                delegate?.stream(self, received: [UInt8](UnsafeRawBufferPointer(rebasing: buffer[0..<count])))
            case .needsInput:
                if engine.pendingCiphertext > 0 || outputStart < output.count { scheduleFlush() }
                return
            case .needsOutputDrained:
                scheduleFlush()
                return
            case .closed:
                close(error: nil)
                return
            case .failed(let error):
                close(error: error)
                return
            }
        }
        if phase != .closed && engine.pendingCiphertext > 0 { scheduleFlush() }
    }

    private func scheduleFlush() {
        guard !flushScheduled, phase != .closed else { return }
        flushScheduled = true
        loop.flushAtEndOfPass(self)
    }

    /// Sends what the kernel takes; true when nothing is left.
    private func sendPlain() -> Bool {
        while outputStart < output.count {
            let result: IOResult
            do {
                result = try output.withUnsafeBytes { raw throws(SystemError) in
                    try socket.write(UnsafeRawBufferPointer(rebasing: raw[outputStart...]))
                }
            } catch {
                close(error: error)
                return false
            }
            switch result {
            case .processed(let count): outputStart += count
            case .wouldBlock: return false
            }
        }
        return true
    }

    private func sendCiphertext(_ engine: TLSEngine) -> Bool {
        while engine.pendingCiphertext > 0 {
            let result: IOResult
            do {
                result = try engine.withPendingCiphertext { pending throws(SystemError) in try socket.write(pending) }
            } catch {
                close(error: error)
                return false
            }
            switch result {
            case .processed(let count): engine.discardCiphertext(count, scratch: loop.ioBuffer)
            case .wouldBlock: return false
            }
        }
        return true
    }

    private func encrypt(_ engine: TLSEngine) {
        while outputStart < output.count && phase == .open {
            let step = min(output.count - outputStart, 16 * 1024)
            let result = output.withUnsafeBytes {
                engine.write(UnsafeRawBufferPointer(rebasing: $0[outputStart..<outputStart + step]))
            }
            switch result {
            case .accepted(let count): outputStart += count
            case .needsInput: return  // retried after the next read schedules a flush
            case .needsOutputDrained: if !sendCiphertext(engine) { return }
            case .failed(let error):
                close(error: error)
                return
            }
        }
    }

    private func updateInterest(wantsOutput: Bool) {
        guard let registration, phase != .closed else { return }
        let events = relay_EPOLLIN | (wantsOutput ? relay_EPOLLOUT : 0)
        guard events != registeredEvents else { return }
        do {
            try loop.modify(registration, events: events)
            registeredEvents = events
        } catch {
            close(error: error)
        }
    }
}

extension LoopStream: LoopSource {
    func handleEvents(_ events: UInt32) {
        if phase == .connecting {
            if events & (relay_EPOLLOUT | relay_EPOLLERR | relay_EPOLLHUP) != 0 { connected() }
            return
        }
        if events & relay_EPOLLERR != 0 {
            close(error: socket.pendingError() ?? SystemError(call: "epoll_wait", errno: EIO))
            return
        }
        if events & relay_EPOLLOUT != 0 && phase != .closed { flushAtEndOfPass() }
        if events & (relay_EPOLLIN | relay_EPOLLHUP) != 0 && phase != .closed { readFromSocket() }
    }

    func loopStopping() {
        close(error: ConnectionError.eventLoopStopped)
    }
}

extension LoopStream: LoopFlushable {
    func flushAtEndOfPass() {
        flushScheduled = false
        guard phase != .closed, phase != .connecting else { return }
        let drained: Bool
        if let engine {
            if phase == .open { encrypt(engine) }
            guard phase != .closed else { return }
            drained = sendCiphertext(engine)
        } else {
            drained = sendPlain()
        }
        guard phase != .closed else { return }
        if drained && outputStart == output.count && output.capacity > 1 << 20 {
            output = []
            outputStart = 0
        }
        updateInterest(wantsOutput: !drained)
    }
}
