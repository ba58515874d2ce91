import RelayHTTP
import RelayNet
import Synchronization

/// Sends an SSE comment (`: ping`) on every open stream every `interval` seconds, so proxies and
/// clients see a quiet stream alive and a dead peer is found on write. One timer per event loop
/// serves every stream on it; it runs only while the loop has streams.
final class StreamHeartbeat: Sendable {
    let interval: Double
    private let loops = Mutex<[ObjectIdentifier: LoopStreams]>([:])

    /// The streams of one loop; touched only on that loop.
    private final class LoopStreams: @unchecked Sendable {
        // Sendable: `streams` and `armed` are only read and written on `loop`.
        let loop: EventLoop
        var streams: [ObjectIdentifier: ResponseStream] = [:]
        var armed = false

        init(loop: EventLoop) { self.loop = loop }
    }

    /// Heartbeats every `interval` seconds (no heartbeats when it is not positive).
    init(interval: Double) { self.interval = interval }

    /// Starts heartbeats on `stream`; call on its loop.
    func add(_ stream: ResponseStream) {
        guard interval > 0 else { return }
        let loop = stream.loop
        let entry = loops.withLock { loops in
            if let existing = loops[ObjectIdentifier(loop)] { return existing }
            let created = LoopStreams(loop: loop)
            loops[ObjectIdentifier(loop)] = created
            return created
        }
        let key = ObjectIdentifier(stream)
        entry.streams[key] = stream
        stream.onEnd { _ in
            loop.execute { entry.streams[key] = nil }
        }
        arm(entry)
    }

    private func arm(_ entry: LoopStreams) {
        guard !entry.armed, !entry.streams.isEmpty else { return }
        entry.armed = true
        _ = entry.loop.schedule(after: interval) { [self] in
            entry.armed = false
            for stream in entry.streams.values where !stream.isEnded { stream.sendOnLoop(SSEEncoder.heartbeat) }
            arm(entry)
        }
    }
}
