package import RelayNet
import Synchronization

/// A response body that keeps flowing (the event stream), on HTTP/1.1 (chunked) or as one HTTP/2
/// stream. `send` may be called from any thread; past `maxBufferedBytes` of unsent data the
/// subscriber is too slow and the stream is cut (it can resume), so it never holds anyone up.
public final class ResponseStream: Sendable {
    /// Why a stream ended.
    package enum EndReason: String, Sendable {
        case finished, peerClosed, tooSlow, shutdown
    }

    package let loop: EventLoop
    let streamID: UInt32
    let maxBufferedBytes: Int
    private let session: Mutex<WeakSession>
    private let state = Mutex<State>(State())

    private struct State {
        var ended: EndReason?
        var observers: [@Sendable (EndReason) -> Void] = []
    }

    struct WeakSession: @unchecked Sendable {
        // Sendable: the session is only dereferenced on its loop.
        weak var value: (any StreamingSession)?
    }

    init(loop: EventLoop, streamID: UInt32, maxBufferedBytes: Int, session: any StreamingSession) {
        self.loop = loop
        self.streamID = streamID
        self.maxBufferedBytes = maxBufferedBytes
        self.session = Mutex(WeakSession(value: session))
    }

    /// Whether the stream has ended.
    package var isEnded: Bool { state.withLock { $0.ended != nil } }

    /// Bytes queued for the subscriber and not yet written to its socket; read on `loop` (the hub
    /// paces a long replay by it, so a resuming subscriber is not cut off by its own backlog).
    package var bufferedBytes: Int {
        guard let session = session.withLock({ $0.value }) else { return 0 }
        return session.bufferedBytes(streamID: streamID)
    }

    /// Queues `bytes` for the subscriber.
    package func send(_ bytes: [UInt8]) {
        if loop.inLoop {
            sendOnLoop(bytes)
        } else {
            loop.execute { self.sendOnLoop(bytes) }
        }
    }

    /// `send` for callers already on the stream's loop (the fan-out hub batches per loop).
    package func sendOnLoop(_ bytes: [UInt8]) {
        guard !isEnded, let session = session.withLock({ $0.value }) else { return }
        // Too slow means unsent data is piling up: a stream that has drained may take one write
        // larger than the bound (a big batch or snapshot), so the bound is max + one write.
        let buffered = session.bufferedBytes(streamID: streamID)
        if buffered > 0, buffered + bytes.count > maxBufferedBytes {
            session.abortStream(streamID: streamID)
            end(.tooSlow)
            return
        }
        session.sendStreamData(streamID: streamID, bytes: bytes)
    }

    /// Ends the body normally.
    package func finish() {
        loop.execute {
            guard !self.isEnded else { return }
            self.session.withLock { $0.value }?.finishStream(streamID: self.streamID)
            self.end(.finished)
        }
    }

    /// Runs `observer` once when the stream ends (at once if it already has).
    package func onEnd(_ observer: @escaping @Sendable (EndReason) -> Void) {
        let ended: EndReason? = state.withLock { state in
            if state.ended == nil { state.observers.append(observer) }
            return state.ended
        }
        if let ended { observer(ended) }
    }

    /// Marks the stream ended and tells the observers (once).
    func end(_ reason: EndReason) {
        let observers: [@Sendable (EndReason) -> Void] = state.withLock { state in
            guard state.ended == nil else { return [] }
            state.ended = reason
            defer { state.observers = [] }
            return state.observers
        }
        for observer in observers { observer(reason) }
    }
}

/// What a `ResponseStream` needs from the HTTP session that carries it. Called on the loop.
protocol StreamingSession: AnyObject {
    func bufferedBytes(streamID: UInt32) -> Int
    func sendStreamData(streamID: UInt32, bytes: [UInt8])
    func finishStream(streamID: UInt32)
    func abortStream(streamID: UInt32)
}
