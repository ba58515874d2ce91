extension HTTP2ServerConnection {
    /// Sends a complete response: HEADERS, then the body as DATA with END_STREAM as windows allow.
    /// Returns false when the stream is gone (reset or closed) or already answered.
    @discardableResult
    public mutating func sendResponse(streamID: UInt32, head: HTTPResponseHead, body: [UInt8]) -> Bool {
        guard sendHead(streamID: streamID, head: head, endStream: body.isEmpty) else { return false }
        if !body.isEmpty {
            sendData(streamID: streamID, bytes: body, endStream: true)
        }
        return true
    }

    /// Sends the response HEADERS (`:status` first; connection-specific fields are dropped, as
    /// HTTP/2 forbids them). With `endStream` the response has no body. Returns false when the
    /// stream is gone or its head was already sent.
    @discardableResult
    package mutating func sendHead(streamID: UInt32, head: HTTPResponseHead, endStream: Bool) -> Bool {
        // One lookup; the stream is read and changed through its index until `finishLocalSide`,
        // which may remove it (writing the block adds or removes no stream).
        guard phase != .closed, let index = streams.index(forKey: streamID), streams.values[index].state.canSend,
            !streams.values[index].headSent
        else {
            return false
        }
        var fields: [(name: String, value: String)] = [(":status", String(head.status))]
        fields.reserveCapacity(head.headers.count + 1)
        for field in head.headers where !HTTP2RequestHead.isConnectionSpecific(field.name) {
            fields.append((field.name, field.value))
        }
        var block: [UInt8] = []
        block.reserveCapacity(128)
        headerEncoder.encode(fields, into: &block)
        writeHeaderBlock(streamID: streamID, block: block, endStream: endStream)
        streams.values[index].headSent = true
        if endStream {
            streams.values[index].state.sendEndStream()
            finishLocalSide(streamID)
        }
        return true
    }

    /// Queues body bytes for a response whose head was sent, with END_STREAM after them when
    /// `endStream`. The bytes go out as the stream and connection windows allow; see
    /// `bufferedBytes(streamID:)`. Returns false when the stream is gone, its head was not sent,
    /// or it already ended.
    @discardableResult
    package mutating func sendData(streamID: UInt32, bytes: [UInt8], endStream: Bool) -> Bool {
        guard phase != .closed, streams[streamID]?.acceptsData == true else { return false }
        streams[streamID]?.enqueue(bytes, endStream: endStream)
        if streams[streamID]?.isScheduled == false {
            streams[streamID]?.isScheduled = true
            scheduledStreams.append(streamID)
        }
        return true
    }

    /// Abandons a stream: RST_STREAM with `code`, queued DATA dropped. No event follows.
    package mutating func resetStream(streamID: UInt32, code: HTTP2ErrorCode) {
        guard phase != .closed, streams.removeValue(forKey: streamID) != nil else { return }
        HTTP2Frame(streamID: streamID, payload: .rstStream(code)).encode(into: &controlOutput)
        controlFrames.record(reset: true, sent: true, code: code)
        closedStreams.record(streamID, .resetByUs)
        creditConnectionWindow()  // a body it held no longer holds the connection's window
    }

    /// Sends GOAWAY with the highest stream we accepted. With NO_ERROR it is graceful: streams
    /// already accepted finish, new ones are ignored, and `canClose` turns true once the last one
    /// ends. With any other code the connection is abandoned at once. `debugData` is free-form
    /// (APNs sends `{"reason":"..."}`).
    package mutating func sendGoaway(code: HTTP2ErrorCode = .noError, debugData: [UInt8] = []) {
        guard phase != .closed else { return }
        let lastStreamID = min(goawayLastStreamID ?? .max, lastAcceptedStreamID)
        HTTP2Frame(streamID: 0, payload: .goaway(lastStreamID: lastStreamID, code: code, debugData: debugData))
            .encode(into: &controlOutput)
        controlFrames.record(reset: false, sent: true, code: code)
        goawayLastStreamID = lastStreamID
        if code != .noError {
            abandonAllStreams()
        }
    }

    /// Announces a new SETTINGS_MAX_CONCURRENT_STREAMS and enforces it at once for new streams
    /// (APNs allows one stream until a request carries a valid token).
    package mutating func setMaxConcurrentStreams(_ limit: Int) {
        guard phase != .closed else { return }
        maxConcurrentStreams = min(max(limit, 0), Int(UInt32.max))
        let settings = [HTTP2Setting(.maxConcurrentStreams, UInt32(maxConcurrentStreams))]
        HTTP2Frame(streamID: 0, payload: .settings(settings)).encode(into: &controlOutput)
        unacknowledgedSettings.append(settings)
    }

    // MARK: - Internals

    /// After our END_STREAM: drops a closed stream, or resets with NO_ERROR a stream the client
    /// is still sending on (RFC 9113 §8.1: a complete response may end the request early).
    mutating func finishLocalSide(_ streamID: UInt32) {
        // One lookup: the stream is read and removed through its index.
        guard let index = streams.index(forKey: streamID) else { return }
        switch streams.values[index].state {
        case .closed:
            streams.remove(at: index)
            closedStreams.record(streamID, .ended)
        case .halfClosedLocal:
            HTTP2Frame(streamID: streamID, payload: .rstStream(.noError)).encode(into: &controlOutput)
            controlFrames.record(reset: true, sent: true, code: .noError)
            streams.remove(at: index)
            closedStreams.record(streamID, .resetByUs)
        default:
            return
        }
        floodGuard.creditCompletedResponse()
    }

    /// Writes a field block as HEADERS plus as many CONTINUATION frames as the peer's frame size needs.
    private mutating func writeHeaderBlock(streamID: UInt32, block: [UInt8], endStream: Bool) {
        let maxFrameSize = peerSettings.maxFrameSize
        var end = min(block.count, maxFrameSize)
        var flags: HTTP2FrameFlags = endStream ? .endStream : []
        if end == block.count { flags.insert(.endHeaders) }
        HTTP2Frame.writeHeader(length: end, type: .headers, flags: flags, streamID: streamID, into: &controlOutput)
        controlOutput.append(contentsOf: block[0..<end])
        while end < block.count {
            let start = end
            end = min(start + maxFrameSize, block.count)
            HTTP2Frame.writeHeader(
                length: end - start, type: .continuation, flags: end == block.count ? .endHeaders : [],
                streamID: streamID, into: &controlOutput)
            controlOutput.append(contentsOf: block[start..<end])
        }
    }
}
