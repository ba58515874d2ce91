import RelayNet

#if canImport(Glibc)
    import Glibc
#endif

/// Log lines written on an event loop's thread, held until the end of the loop's pass and then
/// written with one `write` (a busy loop logs a line per push, and a syscall per line cost more
/// than building the line). Lines stay whole and in order per thread; lines of different threads
/// interleave at line granularity only.
///
/// One buffer per loop thread, found through a thread-specific slot; only that thread touches it.
final class LogBuffer {
    /// Past this many bytes the buffer is written at once rather than at the end of the pass.
    static let flushThreshold = 32 * 1024

    private var bytes: [UInt8] = []
    private var flushScheduled = false
    /// The time to the second of the thread's latest line, formatted once per second.
    var seconds = RelayLog.SecondStamp()

    private init() { bytes.reserveCapacity(4 * 1024) }

    /// The calling thread's buffer (created on first use), or nil off every event loop, where
    /// lines are written as they come.
    static func current() -> (LogBuffer, EventLoop)? {
        guard let loop = EventLoop.current else { return nil }
        if let pointer = pthread_getspecific(key) {
            return (Unmanaged<LogBuffer>.fromOpaque(pointer).takeUnretainedValue(), loop)
        }
        let buffer = LogBuffer()
        pthread_setspecific(key, Unmanaged.passRetained(buffer).toOpaque())
        return (buffer, loop)
    }

    /// The thread-specific slot; a thread that ends writes out and releases its buffer.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            let buffer = Unmanaged<LogBuffer>.fromOpaque(pointer).takeRetainedValue()
            buffer.flush()
        }
        return key
    }()

    /// Adds a line built by `build` and makes sure it is written by the end of `loop`'s pass.
    func append(on loop: EventLoop, _ build: (inout [UInt8]) -> Void) {
        build(&bytes)
        if bytes.count >= Self.flushThreshold {
            flush()
        } else if !flushScheduled {
            flushScheduled = true
            loop.runAtEndOfPass { [self] in
                flushScheduled = false
                flush()
            }
        }
    }

    /// Writes out every held line now (before an urgent line, so the thread's order is kept).
    func flush() {
        guard !bytes.isEmpty else { return }
        RelayLog.writeOut(bytes)
        bytes.removeAll(keepingCapacity: bytes.capacity <= 64 * 1024)
    }
}
