/// Everything the server connection keeps about one active stream: its state, both flow-control
/// windows, the request being assembled, and the response bytes waiting for window.
///
/// Mutated in place through `streams[id]?.…` so its buffers are never copied.
struct HTTP2Stream: Sendable {
    /// What happened to a DATA frame.
    enum DataOutcome: Equatable {
        /// More body is expected.
        case pending
        /// The body just went over the limit: report `.requestTooLarge` and discard the rest.
        case becameTooLarge
        /// END_STREAM arrived: the request is complete.
        case complete
        /// END_STREAM arrived after the body had been discarded.
        case completeDiscarded
    }

    /// The stream identifier.
    let id: UInt32
    /// Where the stream stands.
    var state: HTTP2StreamState
    /// How much DATA we may still send.
    var sendWindow: HTTP2FlowControlWindow
    /// How much DATA the client may still send.
    var receiveWindow: HTTP2FlowControlWindow
    /// The validated request head; nil when its header list was too large to keep.
    let head: HTTP2RequestHead?
    /// The body received so far (empty once discarded).
    private(set) var body: [UInt8] = []
    /// Body bytes received, discarded ones included (content-length is checked against this).
    private(set) var bodyBytesReceived = 0
    /// Set once the body exceeded the limit (or could not be kept): DATA is counted, not stored.
    private(set) var bodyDiscarded: Bool
    /// Received bytes not yet credited back with WINDOW_UPDATE.
    private var receivedUnacknowledged = 0
    /// Whether the server has been told about this stream (`.request` or `.requestTooLarge`).
    var delivered = false
    /// Whether the response HEADERS went out.
    var headSent = false
    /// Whether the stream is in the connection's round-robin queue.
    var isScheduled = false
    /// Response body bytes waiting for window, from `outboundStart` on.
    private var outbound: [UInt8] = []
    private var outboundStart = 0
    /// Whether END_STREAM goes out after the queued bytes.
    private(set) var endStreamQueued = false

    init(id: UInt32, head: HTTP2RequestHead?, sendWindow: Int, receiveWindow: Int) {
        self.id = id
        self.state = .open
        self.head = head
        self.bodyDiscarded = head == nil
        self.sendWindow = HTTP2FlowControlWindow(sendWindow)
        self.receiveWindow = HTTP2FlowControlWindow(receiveWindow)
    }

    // MARK: - Receiving

    /// Accounts for a DATA frame on this stream and stores its bytes (RFC 9113 §6.1, §8.1.1).
    mutating func receiveData(
        _ bytes: [UInt8], flowControlledLength: Int, endStream: Bool, maxBodyBytes: Int
    ) throws(HTTP2ProtocolError) -> DataOutcome {
        guard state.canReceive else { throw .stream(id, .streamClosed, "DATA after END_STREAM") }
        guard receiveWindow.allows(flowControlledLength) else {
            throw .stream(id, .flowControlError, "DATA beyond the stream window", value: flowControlledLength)
        }
        receiveWindow.consume(flowControlledLength)
        receivedUnacknowledged += flowControlledLength
        bodyBytesReceived += bytes.count
        if let declared = head?.contentLength, bodyBytesReceived > declared {
            throw .stream(id, .protocolError, "more DATA than content-length", value: bodyBytesReceived)
        }
        var outcome = DataOutcome.pending
        if !bodyDiscarded {
            if bodyBytesReceived > maxBodyBytes {
                bodyDiscarded = true
                body = []
                outcome = .becameTooLarge
            } else {
                body.append(contentsOf: bytes)
            }
        }
        guard endStream else { return outcome }
        let ended = try receiveEndStream()
        // The frame that crossed the limit may also end the stream: the server must still hear of it.
        return outcome == .becameTooLarge ? outcome : ended
    }

    /// Handles END_STREAM (on DATA or trailers): checks content-length and closes our receiving side.
    mutating func receiveEndStream() throws(HTTP2ProtocolError) -> DataOutcome {
        if let declared = head?.contentLength, bodyBytesReceived != declared {
            throw .stream(id, .protocolError, "DATA length differs from content-length", value: bodyBytesReceived)
        }
        state.receiveEndStream()
        return bodyDiscarded ? .completeDiscarded : .complete
    }

    /// Marks the body as discarded from the start (content-length above the limit).
    mutating func discardBody() {
        bodyDiscarded = true
        body = []
    }

    /// Hands the buffered body over, leaving none behind.
    mutating func takeBody() -> [UInt8] {
        defer { body = [] }
        return body
    }

    /// The WINDOW_UPDATE increment to send once half the window is used, or nil. Discarded bodies
    /// get no credit, so a client uploading a rejected body stalls instead of streaming on.
    mutating func takeWindowCredit(initialWindowSize: Int) -> Int? {
        guard state.canReceive, !bodyDiscarded, receivedUnacknowledged > 0,
            receivedUnacknowledged >= max(initialWindowSize / 2, 1)
        else { return nil }
        defer { receivedUnacknowledged = 0 }
        _ = receiveWindow.increase(by: receivedUnacknowledged)
        return receivedUnacknowledged
    }

    // MARK: - Sending

    /// Response bytes queued and not yet sent.
    var bufferedBytes: Int { outbound.count - outboundStart }

    /// Whether a DATA frame (or a bare END_STREAM) is waiting.
    var hasPendingData: Bool { state.canSend && (bufferedBytes > 0 || endStreamQueued) }

    /// Whether the response may still take body bytes.
    var acceptsData: Bool { headSent && !endStreamQueued && state.canSend }

    /// Queues response body bytes, and END_STREAM after them when `endStream`.
    mutating func enqueue(_ bytes: [UInt8], endStream: Bool) {
        outbound.append(contentsOf: bytes)
        endStreamQueued = endStream
    }

    /// Appends the next DATA frame the windows allow to `output`. Returns the flow-controlled
    /// bytes it carries and whether it ended the stream, or nil when the stream is blocked.
    mutating func emitDataFrame(
        connectionWindow: Int, maxFrameSize: Int, into output: inout [UInt8]
    ) -> (length: Int, endStream: Bool)? {
        let pending = bufferedBytes
        let length = min(pending, sendWindow.available, connectionWindow, maxFrameSize)
        guard length > 0 || (pending == 0 && endStreamQueued) else { return nil }
        let endStream = endStreamQueued && length == pending
        HTTP2Frame.encodeData(
            streamID: id, bytes: outbound[outboundStart..<(outboundStart + length)], endStream: endStream,
            into: &output)
        outboundStart += length
        sendWindow.consume(length)
        if outboundStart == outbound.count {
            outbound.removeAll(keepingCapacity: true)
            outboundStart = 0
        } else if outboundStart >= 65_536 && outboundStart * 2 >= outbound.count {
            outbound.removeSubrange(0..<outboundStart)
            outboundStart = 0
        }
        if endStream {
            endStreamQueued = false
            state.sendEndStream()
        }
        return (length, endStream)
    }
}
