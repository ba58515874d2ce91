import RelayCore
import RelayHTTP
import RelayJSON
import RelayNet
import Synchronization

/// HTTP/2 on one connection: the pure `HTTP2ServerConnection` does the protocol; this shell
/// moves its bytes, dispatches requests, carries streaming responses and runs the timers.
final class HTTP2Session: HTTPSession, StreamingSession, @unchecked Sendable {
    // Sendable: every member is touched only on the connection's loop; other threads hop there with `execute`.
    private let connection: Connection
    private let context: ConnectionContext
    private let responder: any Responder
    private let limits: HTTPLimits
    private var h2: HTTP2ServerConnection
    private var streams: [UInt32: ResponseStream] = [:]
    /// Streams handed to the responder whose response has not been sent.
    private var pending: Set<UInt32> = []
    /// Paged bodies still being made, by stream: a page is rendered when the stream's queued
    /// bytes fall below `pageRefillBytes`.
    private var pagedBodies: [UInt32: any ResponsePages] = [:]
    /// Runs while no stream is open: `firstRequestTimeout` before the first stream, then
    /// `idleTimeout`. Frames that open no stream (PING, SETTINGS) do not move it.
    private var idleTimer: TimerID?
    private var hadStream = false
    /// The header-read deadline of a header block still arriving in CONTINUATION frames.
    private var headerTimer: TimerID?
    /// The body-read deadline of each stream whose request body is still arriving.
    private var bodyTimers: [UInt32: TimerID] = [:]
    /// Runs while response bytes wait for a window the peer does not open (`sendTimeout`).
    private var sendTimer: TimerID?
    private var isClosed = false
    /// Response bytes queued behind flow control on every HTTP/2 connection of the process.
    private static let queuedAcrossConnections = Atomic<Int>(0)
    /// This connection's share of `queuedAcrossConnections`, as last counted.
    private var queuedCounted = 0
    /// This connection's request bytes in the process-wide budget.
    private var requestShare = BufferedRequestShare()
    /// Output is pulled from the protocol only while the socket has room.
    private static let socketHighWater = 256 * 1024
    /// A paged body's next page is made once its stream has less than this queued (one DATA
    /// frame at the default frame size), so frames stay full and a stream whose window is shut
    /// holds one page.
    private static let pageRefillBytes = 16 * 1024

    init(connection: Connection, context: ConnectionContext, responder: any Responder, limits: HTTPLimits) {
        self.connection = connection
        self.context = context
        self.responder = responder
        self.limits = limits
        var configuration = HTTP2Configuration()
        configuration.maxConcurrentStreams = limits.gateUntilAuthenticated ? 1 : limits.maxConcurrentStreams
        configuration.maxHeaderListSize = limits.maxHeaderListSize
        configuration.maxRequestBodyBytes = limits.maxBodyBytes
        h2 = HTTP2ServerConnection(configuration: configuration)
        let loop = connection.loop
        context.goaway = { [weak self] reason in
            guard let session = self else { return }
            loop.execute { session.closeGracefully(reason: reason) }
        }
        context.injectClose = { [weak self] streamID, reason in
            guard let session = self else { return }
            loop.execute { session.injectClose(streamID: streamID, goawayReason: reason) }
        }
        context.runAfter = { seconds, work in
            loop.execute { loop.schedule(after: seconds, work) }
        }
        if limits.gateUntilAuthenticated {
            let full = limits.maxConcurrentStreams
            context.openGate = { [weak self] in
                self?.h2.setMaxConcurrentStreams(full)
                self?.flush()
            }
        }
    }

    func start() {
        flush()
        armIdleTimer()
    }

    func received(_ bytes: [UInt8]) {
        let events = h2.receive(bytes)
        for event in events {
            switch event {
            case .request(let streamID, _, _, _) where isOverResponseBudget:
                refuse(streamID: streamID)
            case .request(let streamID, let request, _, _):
                dispatch(streamID: streamID, request: request, tooLarge: false)
            case .requestTooLarge(let streamID, let request, _, _):
                dispatch(streamID: streamID, request: request, tooLarge: true)
            case .streamReset(let streamID, _):
                pending.remove(streamID)
                pagedBodies[streamID] = nil
                streams.removeValue(forKey: streamID)?.end(.peerClosed)
            case .goawayReceived:
                break
            case .connectionError(let code, let reason):
                RelayLog.info("h2.error", ["conn": String(connection.id), "code": "\(code)", "reason": reason])
            }
        }
        holdRequestBytesWithinBudget()
        flush()
        armIdleTimer()
        armReadDeadlines()
    }

    func writable() { flush() }

    func closed() {
        isClosed = true
        if let idleTimer { connection.loop.cancel(idleTimer) }
        if let headerTimer { connection.loop.cancel(headerTimer) }
        if let sendTimer { connection.loop.cancel(sendTimer) }
        for timer in bodyTimers.values { connection.loop.cancel(timer) }
        bodyTimers.removeAll()
        for stream in streams.values { stream.end(.peerClosed) }
        streams.removeAll()
        pending.removeAll()
        pagedBodies.removeAll()
        countQueuedBytes(0)
        requestShare.update(0)
    }

    func shutdown() {
        h2.sendGoaway(code: .noError, debugData: Self.reasonData("Shutdown"))
        for (id, stream) in streams {
            h2.sendData(streamID: id, bytes: [], endStream: true)
            stream.end(.shutdown)
        }
        streams.removeAll()
        flush()
    }

    // MARK: - Requests

    private func dispatch(streamID: UInt32, request: HTTPRequest, tooLarge: Bool) {
        hadStream = true
        pending.insert(streamID)
        let loop = connection.loop
        let serverRequest = ServerRequest(
            request: request, context: context, bodyTooLarge: tooLarge, streamID: streamID)
        responder.handle(serverRequest) { [weak self] response in
            guard let session = self else { return }
            // Answered on the loop (the usual case: completions come back to it): no extra hop.
            if loop.inLoop {
                session.complete(streamID: streamID, response)
            } else {
                loop.execute { session.complete(streamID: streamID, response) }
            }
        }
    }

    private func complete(streamID: UInt32, _ response: ServerResponse) {
        guard !isClosed, pending.remove(streamID) != nil else { return }
        switch response {
        case .full(let full):
            h2.sendResponse(streamID: streamID, head: full.head, body: full.body)
        case .paged(let head, let pages):
            switch PagedBodyStart(pulling: pages) {
            case .whole(let body):
                h2.sendResponse(streamID: streamID, head: head, body: body)
            case .partial(let start):
                guard h2.sendHead(streamID: streamID, head: head, endStream: false) else { break }
                h2.sendData(streamID: streamID, bytes: start, endStream: false)
                pagedBodies[streamID] = pages
            case .failed:
                h2.resetStream(streamID: streamID, code: .internalError)
            }
        case .stream(let head, let start):
            guard h2.sendHead(streamID: streamID, head: head, endStream: false) else { break }
            let stream = ResponseStream(
                loop: connection.loop, streamID: streamID, maxBufferedBytes: limits.streamBufferBytes, session: self)
            streams[streamID] = stream
            start(stream)
        }
        flush()
        armIdleTimer()
    }

    // MARK: - Streaming

    func bufferedBytes(streamID: UInt32) -> Int { h2.bufferedBytes(streamID: streamID) }

    func sendStreamData(streamID: UInt32, bytes: [UInt8]) {
        guard streams[streamID] != nil else { return }
        h2.sendData(streamID: streamID, bytes: bytes, endStream: false)
        flush()
    }

    func finishStream(streamID: UInt32) {
        guard streams.removeValue(forKey: streamID) != nil else { return }
        h2.sendData(streamID: streamID, bytes: [], endStream: true)
        flush()
        armIdleTimer()
    }

    func abortStream(streamID: UInt32) {
        guard streams.removeValue(forKey: streamID) != nil else { return }
        h2.resetStream(streamID: streamID, code: .cancel)
        flush()
    }

    // MARK: - Output and timers

    private func flush() {
        for frame in h2.takeControlFrames() {
            RelayMetrics.shared.countHTTP2(reset: frame.isReset, sent: frame.sent, code: frame.code.rawValue)
        }
        guard !isClosed else { return }
        while connection.pendingWriteBytes < Self.socketHighWater {
            refillPagedBodies()
            guard let bytes = h2.nextOutput() else { break }
            connection.write(bytes)
        }
        if h2.canClose { connection.closeAfterFlush() }
        armSendDeadline()
        countQueuedBytes(streams.isEmpty && pending.isEmpty && h2.openStreamCount == 0 ? 0 : h2.queuedResponseBytes)
    }

    /// Makes the next page of each paged body whose stream has less than `pageRefillBytes`
    /// queued; a body that ends or fails leaves `pagedBodies`.
    private func refillPagedBodies() {
        guard !pagedBodies.isEmpty else { return }
        for (id, pages) in pagedBodies where h2.bufferedBytes(streamID: id) < Self.pageRefillBytes {
            switch pages.next() {
            case .more(let bytes):
                if !h2.sendData(streamID: id, bytes: bytes, endStream: false) { pagedBodies[id] = nil }
            case .last(let bytes):
                h2.sendData(streamID: id, bytes: bytes, endStream: true)
                pagedBodies[id] = nil
            case .failed:
                RelayLog.error("h2.pagedBody", ["conn": String(connection.id), "stream": String(id)])
                h2.resetStream(streamID: id, code: .internalError)
                pagedBodies[id] = nil
            }
        }
    }

    /// Moves this connection's share of the process-wide count of queued response bytes to `bytes`.
    private func countQueuedBytes(_ bytes: Int) {
        guard bytes != queuedCounted else { return }
        Self.queuedAcrossConnections.add(bytes - queuedCounted, ordering: .relaxed)
        queuedCounted = bytes
    }

    /// True when this connection (`maxQueuedResponseBytes`) or the process
    /// (`maxQueuedResponseBytesTotal`) holds as many response bytes as the peers' windows let it:
    /// new streams are refused rather than memory grown.
    private var isOverResponseBudget: Bool {
        queuedCounted >= limits.maxQueuedResponseBytes
            || Self.queuedAcrossConnections.load(ordering: .relaxed) >= limits.maxQueuedResponseBytesTotal
    }

    /// Counts the request bytes this connection holds; when every connection together holds more
    /// than `maxBufferedRequestBytesTotal`, refuses this connection's requests still arriving
    /// (REFUSED_STREAM: not processed, safe to retry), freeing their bytes.
    private func holdRequestBytesWithinBudget() {
        requestShare.update(h2.heldRequestBytes)
        guard BufferedRequestShare.bytesHeld > limits.maxBufferedRequestBytesTotal else { return }
        let arriving = h2.streamsAwaitingBody
        guard !arriving.isEmpty else { return }
        RelayLog.info(
            "h2.requestBudget",
            [
                "conn": String(connection.id), "refused": String(arriving.count),
                "held": String(BufferedRequestShare.bytesHeld),
            ])
        for id in arriving { refuse(streamID: id) }
        requestShare.update(h2.heldRequestBytes)
    }

    /// RST_STREAM(REFUSED_STREAM) for a request not processed: the client may retry it.
    private func refuse(streamID: UInt32) {
        RelayLog.debug("h2.refused", ["conn": String(connection.id), "stream": String(streamID)])
        h2.resetStream(streamID: streamID, code: .refusedStream)
    }

    /// True when no stream is open, answered or not, and no header block is arriving.
    private var isIdle: Bool {
        pending.isEmpty && streams.isEmpty && pagedBodies.isEmpty && h2.openStreamCount == 0
            && !h2.isReceivingHeaderBlock
    }

    /// Closes (with GOAWAY) a connection with no streams for `idleTimeout` (`firstRequestTimeout`
    /// before its first stream). The deadline is set when the connection becomes idle and only a
    /// new stream clears it.
    private func armIdleTimer() {
        guard !isClosed, isIdle else {
            if let idleTimer { connection.loop.cancel(idleTimer) }
            idleTimer = nil
            return
        }
        guard idleTimer == nil else { return }
        let seconds = hadStream ? limits.idleTimeout : limits.firstRequestTimeout
        idleTimer = connection.loop.schedule(after: seconds) { [weak self] in
            guard let self else { return }
            self.idleTimer = nil
            guard !self.isClosed, self.isIdle else { return }
            RelayLog.info("h2.idle", ["conn": String(self.connection.id), "first": String(!self.hadStream)])
            self.h2.sendGoaway(code: .noError, debugData: Self.reasonData("IdleTimeout"))
            self.flush()
            self.connection.closeAfterFlush()
        }
    }

    /// Starts the header-read deadline when a header block is left unfinished, and a body-read
    /// deadline for each stream whose body is arriving; clears those no longer needed. Each is a
    /// deadline for the whole block or body: frames that keep arriving do not move it.
    private func armReadDeadlines() {
        guard !isClosed else { return }
        if h2.isReceivingHeaderBlock {
            if headerTimer == nil {
                headerTimer = connection.loop.schedule(after: limits.headerReadTimeout) { [weak self] in
                    guard let self else { return }
                    self.headerTimer = nil
                    guard !self.isClosed, self.h2.isReceivingHeaderBlock else { return }
                    self.abort(reason: "HeaderReadTimeout")
                }
            }
        } else if let headerTimer {
            connection.loop.cancel(headerTimer)
            self.headerTimer = nil
        }
        let awaiting = h2.streamsAwaitingBody
        guard !awaiting.isEmpty || !bodyTimers.isEmpty else { return }
        for (id, timer) in bodyTimers where !awaiting.contains(id) {
            connection.loop.cancel(timer)
            bodyTimers[id] = nil
        }
        for id in awaiting where bodyTimers[id] == nil {
            hadStream = true
            bodyTimers[id] = connection.loop.schedule(after: limits.bodyReadTimeout) { [weak self] in
                self?.bodyTimedOut(streamID: id)
            }
        }
    }

    /// Answers 408 to a request whose body did not arrive within `bodyReadTimeout`; the rest of it
    /// is discarded.
    private func bodyTimedOut(streamID: UInt32) {
        bodyTimers[streamID] = nil
        guard !isClosed, h2.abandonRequestBody(streamID: streamID) else { return }
        requestShare.update(h2.heldRequestBytes)
        RelayLog.info("h2.timeout", ["conn": String(connection.id), "stream": String(streamID), "phase": "body read"])
        let response = TransportError.response(
            status: 408, code: "timeout",
            message: "the request's body read took longer than \(limits.bodyReadTimeout) s")
        h2.sendResponse(streamID: streamID, head: response.head, body: response.body)
        flush()
        armIdleTimer()
    }

    /// Starts the send deadline while response bytes wait on a window the peer keeps shut; clears
    /// it as soon as any of them can go.
    private func armSendDeadline() {
        guard !isClosed, h2.isSendBlocked else {
            if let sendTimer { connection.loop.cancel(sendTimer) }
            sendTimer = nil
            return
        }
        guard sendTimer == nil else { return }
        sendTimer = connection.loop.schedule(after: limits.sendTimeout) { [weak self] in
            guard let self else { return }
            self.sendTimer = nil
            guard !self.isClosed, self.h2.isSendBlocked else { return }
            self.abort(reason: "SendTimeout")
        }
    }

    /// Ends the connection at once: GOAWAY(ENHANCE_YOUR_CALM) with `{"reason": reason}`, every
    /// stream and its queued bytes dropped, the socket closed once the GOAWAY is written.
    private func abort(reason: String) {
        RelayLog.info("h2.abort", ["conn": String(connection.id), "reason": reason])
        for stream in streams.values { stream.end(.peerClosed) }
        streams.removeAll()
        pending.removeAll()
        pagedBodies.removeAll()
        h2.sendGoaway(code: .enhanceYourCalm, debugData: Self.reasonData(reason))
        flush()
        connection.closeAfterFlush()
    }

    /// GOAWAY with `{"reason": reason}` (APNs' shape); streams already accepted are answered,
    /// then `flush` closes the socket.
    private func closeGracefully(reason: String) {
        guard !isClosed else { return }
        RelayLog.info("h2.goaway", ["conn": String(connection.id), "reason": reason])
        h2.sendGoaway(code: .noError, debugData: Self.reasonData(reason))
        flush()
    }

    /// An injected fault's end of a stream: refused with GOAWAY `{"reason": reason}` (the client
    /// may retry it on a new connection), or, with no reason, the connection reset mid-stream.
    private func injectClose(streamID: UInt32, goawayReason: String?) {
        guard !isClosed else { return }
        pending.remove(streamID)
        pagedBodies[streamID] = nil
        guard let reason = goawayReason else {
            RelayLog.info("fault.reset", ["conn": String(connection.id), "stream": String(streamID)])
            connection.reset()
            return
        }
        RelayLog.info("fault.goaway", ["conn": String(connection.id), "stream": String(streamID), "reason": reason])
        h2.resetStream(streamID: streamID, code: .refusedStream)
        h2.sendGoaway(code: .noError, debugData: Self.reasonData(reason))
        flush()
    }

    /// `{"reason": reason}` as GOAWAY debug data.
    private static func reasonData(_ reason: String) -> [UInt8] {
        JSONValue.object(["reason": .string(reason)]).serialized()
    }
}
