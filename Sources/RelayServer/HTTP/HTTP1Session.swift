import RelayCore
import RelayHTTP
import RelayNet

/// HTTP/1.1 on one connection: requests are answered one at a time in order (pipelined ones
/// wait in the parser), a streaming response uses chunked framing and holds the connection.
final class HTTP1Session: HTTPSession, StreamingSession, @unchecked Sendable {
    // Sendable: every member is touched only on the connection's loop; other threads hop there with `execute`.
    private let connection: Connection
    private let context: ConnectionContext
    private let responder: any Responder
    private let limits: HTTPLimits
    private var parser: HTTP1RequestParser
    /// A request has been handed to the responder and its response is not complete.
    private var busy = false
    private var generation: UInt64 = 0
    private var stream: ResponseStream?
    private var streamKeepAlive = false
    /// The paged body being sent, written a page at a time while the socket takes it.
    private var paged: PagedBody?
    private var timer: TimerID?
    /// The phase `timer` was armed for: a deadline covers the whole phase, not the gap between bytes.
    private var timerPhase: String?
    /// Whether this connection has had a request: until then `firstRequestTimeout` bounds the wait.
    private var hadRequest = false
    private var isClosed = false
    private var shuttingDown = false
    /// This connection's request bytes in the process-wide budget.
    private var requestShare = BufferedRequestShare()

    init(connection: Connection, context: ConnectionContext, responder: any Responder, limits: HTTPLimits) {
        self.connection = connection
        self.context = context
        self.responder = responder
        self.limits = limits
        parser = HTTP1RequestParser(
            limits: .init(
                maxHeaderBytes: limits.maxHeaderListSize, maxHeaderFields: 100, maxBodyBytes: limits.maxBodyBytes))
    }

    func start() { armTimer() }

    func received(_ bytes: [UInt8]) {
        parser.feed(bytes)
        processNext()
        holdRequestBytesWithinBudget()
    }

    func writable() { continuePagedBody() }

    func closed() {
        isClosed = true
        requestShare.update(0)
        cancelTimer()
        stream?.end(.peerClosed)
        stream = nil
        paged = nil
    }

    func shutdown() {
        shuttingDown = true
        if let stream {
            // An event stream never completes on its own: end its body (the client resumes
            // elsewhere or later from its last id) instead of holding shutdown for the grace period.
            finishStream(streamID: 1)
            stream.end(.shutdown)
            return
        }
        if !busy { connection.close() }
    }

    // MARK: - Requests

    private func processNext() {
        guard !busy, !isClosed else { return }
        switch parser.next() {
        case .needMore:
            armTimer()
        case .error(let error):
            cancelTimer()
            // An over-limit body is answered as HTTP/2's routes answer it.
            let response =
                error.reason == .bodyTooLarge
                ? TransportError.response(status: 413, code: "tooLarge", message: TransportError.bodyTooLargeMessage)
                : TransportError.response(status: error.status, code: "badRequest", message: error.reason.rawValue)
            connection.write(HTTP1ResponseWriter.response(response, keepAlive: false))
            connection.closeAfterFlush()
            RelayLog.info(
                "http1.reject",
                ["conn": String(connection.id), "status": String(error.status), "reason": error.reason.rawValue])
        case .request(let request, let info):
            cancelTimer()
            hadRequest = true
            busy = true
            generation += 1
            let current = generation
            let keepAlive = info.keepAlive && !shuttingDown
            let loop = connection.loop
            let isHead = request.method == "HEAD"
            let minor = info.minorVersion
            context.markTrusted()
            responder.handle(ServerRequest(request: request, context: context)) { [weak self] response in
                guard let session = self else { return }
                loop.execute {
                    session.complete(
                        response, generation: current, keepAlive: keepAlive, isHead: isHead, minorVersion: minor)
                }
            }
        }
    }

    private func complete(
        _ response: ServerResponse, generation current: UInt64, keepAlive: Bool, isHead: Bool, minorVersion: Int
    ) {
        guard current == generation, busy, !isClosed else { return }
        switch response {
        case .full(let full):
            connection.write(
                HTTP1ResponseWriter.response(
                    full, keepAlive: keepAlive, requestMinorVersion: minorVersion, isHeadRequest: isHead))
            finishRequest(keepAlive: keepAlive)
        case .paged(let head, let pages):
            startPagedBody(head, pages, keepAlive: keepAlive, isHead: isHead, minorVersion: minorVersion)
        case .stream(let head, let start):
            let framing: HTTP1ResponseWriter.Framing = minorVersion >= 1 ? .chunked : .untilClose
            connection.write(
                HTTP1ResponseWriter.head(
                    head, framing: framing, keepAlive: keepAlive, requestMinorVersion: minorVersion))
            let stream = ResponseStream(
                loop: connection.loop, streamID: 1, maxBufferedBytes: limits.streamBufferBytes, session: self)
            self.stream = stream
            streamKeepAlive = keepAlive && minorVersion >= 1
            start(stream)
        }
    }

    // MARK: - Paged bodies

    /// A paged body on its way: its pages, its framing and whether the connection stays open after it.
    private struct PagedBody {
        var pages: any ResponsePages
        var framing: HTTP1ResponseWriter.Framing
        var keepAlive: Bool
    }

    /// Sends a small body whole (`content-length`, as a full response); a large one with chunked
    /// framing (until close for HTTP/1.0), a page at a time while the socket takes it. A HEAD
    /// request gets the head with the body's length, counted without keeping it.
    private func startPagedBody(
        _ head: HTTPResponseHead, _ pages: any ResponsePages, keepAlive: Bool, isHead: Bool, minorVersion: Int
    ) {
        if isHead {
            guard let length = pages.remainingByteCount() else { return failPagedBody() }
            connection.write(
                HTTP1ResponseWriter.head(
                    head, framing: .contentLength(length), keepAlive: keepAlive, requestMinorVersion: minorVersion))
            finishRequest(keepAlive: keepAlive)
            return
        }
        switch PagedBodyStart(pulling: pages) {
        case .whole(let body):
            let response = HTTPResponse(status: head.status, headers: head.headers, body: body)
            connection.write(
                HTTP1ResponseWriter.response(
                    response, keepAlive: keepAlive, requestMinorVersion: minorVersion, isHeadRequest: isHead))
            finishRequest(keepAlive: keepAlive)
        case .partial(let start):
            let framing: HTTP1ResponseWriter.Framing = minorVersion >= 1 ? .chunked : .untilClose
            connection.write(
                HTTP1ResponseWriter.head(
                    head, framing: framing, keepAlive: keepAlive, requestMinorVersion: minorVersion))
            paged = PagedBody(pages: pages, framing: framing, keepAlive: keepAlive && framing == .chunked)
            writePage(start, last: false)
            continuePagedBody()
        case .failed:
            failPagedBody()
        }
    }

    /// Writes pages while the socket takes them; `writable` resumes once it drained.
    private func continuePagedBody() {
        while let body = paged, connection.isWritable, !isClosed {
            switch body.pages.next() {
            case .more(let bytes): writePage(bytes, last: false)
            case .last(let bytes): writePage(bytes, last: true)
            case .failed: failPagedBody()
            }
        }
    }

    /// Writes one page in the body's framing; after the last, ends the body and the request.
    private func writePage(_ bytes: [UInt8], last: Bool) {
        guard let body = paged else { return }
        if body.framing == .chunked {
            var out = HTTP1ResponseWriter.chunk(bytes)
            if last { out += HTTP1ResponseWriter.lastChunk }
            connection.write(out)
        } else if !bytes.isEmpty {
            connection.write(bytes)
        }
        guard last else { return }
        paged = nil
        finishRequest(keepAlive: body.keepAlive)
    }

    /// A body that cannot be completed: the connection is closed, so the peer sees an unfinished
    /// answer rather than a shortened one.
    private func failPagedBody() {
        RelayLog.error("http1.pagedBody", ["conn": String(connection.id)])
        paged = nil
        connection.close()
    }

    /// Counts the bytes this connection's parser holds; when every connection together holds more
    /// than `maxBufferedRequestBytesTotal` and this one is partway through a request, answers
    /// `503` (`retry-after: 1`) and closes, freeing them.
    private func holdRequestBytesWithinBudget() {
        requestShare.update(parser.heldByteCount)
        guard !busy, !isClosed, parser.progress != .idle,
            BufferedRequestShare.bytesHeld > limits.maxBufferedRequestBytesTotal
        else { return }
        RelayLog.info(
            "http1.requestBudget", ["conn": String(connection.id), "held": String(BufferedRequestShare.bytesHeld)])
        cancelTimer()
        var response = TransportError.response(
            status: 503, code: "unavailable",
            message: "the relay holds too many request bytes (http.maxBufferedRequestBytesTotal); retry shortly")
        response.headers.add("retry-after", "1")
        connection.write(HTTP1ResponseWriter.response(response, keepAlive: false))
        connection.closeAfterFlush()
        isClosed = true
        requestShare.update(0)
    }

    private func finishRequest(keepAlive: Bool) {
        busy = false
        if keepAlive && !shuttingDown {
            processNext()
        } else {
            connection.closeAfterFlush()
        }
    }

    // MARK: - Streaming

    func bufferedBytes(streamID: UInt32) -> Int { connection.pendingWriteBytes }

    func sendStreamData(streamID: UInt32, bytes: [UInt8]) {
        guard stream != nil, !bytes.isEmpty else { return }
        connection.write(HTTP1ResponseWriter.chunk(bytes))
    }

    func finishStream(streamID: UInt32) {
        guard stream != nil else { return }
        stream = nil
        connection.write(HTTP1ResponseWriter.lastChunk)
        finishRequest(keepAlive: streamKeepAlive)
    }

    func abortStream(streamID: UInt32) {
        stream = nil
        connection.close()
    }

    // MARK: - Timeouts

    /// Idle between requests (`firstRequestTimeout` before the first), header-read while a head
    /// arrives, body-read while a body arrives. Each is a deadline for the whole phase: bytes that
    /// keep arriving within a phase do not move it.
    private func armTimer() {
        guard !busy, !isClosed else {
            cancelTimer()
            return
        }
        let seconds: Double
        let reason: String
        switch parser.progress {
        case .idle where !hadRequest: (seconds, reason) = (limits.firstRequestTimeout, "idle")
        case .idle: (seconds, reason) = (limits.idleTimeout, "idle")
        case .head: (seconds, reason) = (limits.headerReadTimeout, "header read")
        case .body: (seconds, reason) = (limits.bodyReadTimeout, "body read")
        }
        if timer != nil && timerPhase == reason { return }
        cancelTimer()
        timerPhase = reason
        timer = connection.loop.schedule(after: seconds) { [weak self] in
            guard let self, !self.isClosed, !self.busy else { return }
            RelayLog.info("http1.timeout", ["conn": String(self.connection.id), "phase": reason])
            if reason != "idle" {
                let response = TransportError.response(
                    status: 408, code: "timeout", message: "the request's \(reason) took longer than \(seconds) s")
                self.connection.write(HTTP1ResponseWriter.response(response, keepAlive: false))
                self.connection.closeAfterFlush()
            } else {
                self.connection.close()
            }
        }
    }

    private func cancelTimer() {
        if let timer { connection.loop.cancel(timer) }
        timer = nil
        timerPhase = nil
    }
}
