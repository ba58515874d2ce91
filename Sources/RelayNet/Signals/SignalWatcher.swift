import CRelayLinux
import Glibc

/// Delivers SIGTERM and SIGINT (or other signals) to a closure on an event loop, through a signalfd.
///
/// The signals are blocked in the creating thread and in the watching loop's thread (event-loop threads
/// block SIGTERM and SIGINT from birth), so the kernel queues them for the signalfd instead of running the default action. Create the watcher on the main thread
/// before starting other threads (threads inherit the blocked set), e.g. first thing in `main`.
// Sendable: the source is loop-confined; `stop` hops onto the loop.
public final class SignalWatcher: @unchecked Sendable {
    /// The loop the closure runs on.
    package let loop: EventLoop
    private let source: Source

    /// Starts watching `signals` (default SIGTERM and SIGINT) and calls `onSignal(number)` on `loop` for
    /// each arrival. Also ignores SIGPIPE process-wide.
    public init(
        loop: EventLoop, signals: [Int32] = SignalWatcher.terminationSignals,
        onSignal: @escaping @Sendable (Int32) -> Void
    ) throws {
        Self.ignoreSIGPIPE()
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        let fd = try syscall("signalfd") { signalfd(-1, &set, Int32(SFD_NONBLOCK | SFD_CLOEXEC)) }
        self.loop = loop
        let source = Source(fd: fd, loop: loop, onSignal: onSignal)
        self.source = source
        let blocked = set
        do {
            try loop.submitAndWait {
                var blockedOnLoop = blocked  // a signal sent to the loop thread itself is then queued too
                pthread_sigmask(SIG_BLOCK, &blockedOnLoop, nil)
                try source.start()
            }
        } catch {
            close(fd)
            throw error
        }
    }

    /// Stops watching and closes the signalfd (the signals stay blocked).
    public func stop() {
        let source = self.source
        loop.execute { source.close() }
    }

    /// SIGTERM and SIGINT: what a service manager or a terminal sends to ask for shutdown.
    public static let terminationSignals: [Int32] = [SIGTERM, SIGINT]

    /// Makes writes to a reset peer fail with EPIPE instead of killing the process.
    package static func ignoreSIGPIPE() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// The signalfd as a loop source.
    private final class Source: LoopSource, @unchecked Sendable {  // Sendable: touched only on `loop`.
        private let fd: Int32
        private let loop: EventLoop
        private let onSignal: @Sendable (Int32) -> Void
        private var registration: LoopRegistration?

        init(fd: Int32, loop: EventLoop, onSignal: @escaping @Sendable (Int32) -> Void) {
            self.fd = fd
            self.loop = loop
            self.onSignal = onSignal
        }

        func start() throws {
            registration = try loop.register(fd: fd, events: relay_EPOLLIN, source: self)
        }

        func handleEvents(_ events: UInt32) {
            var info = signalfd_siginfo()
            let size = MemoryLayout<signalfd_siginfo>.size
            while registration != nil {
                let count = read(fd, &info, size)
                guard count == size else { return }  // EAGAIN: drained
                onSignal(Int32(info.ssi_signo))
            }
        }

        func close() {
            guard let registration else { return }
            self.registration = nil
            loop.deregister(registration)
            _ = Glibc.close(fd)
        }

        func loopStopping() { close() }
    }
}
