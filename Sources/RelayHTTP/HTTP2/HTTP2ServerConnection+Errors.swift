/// How the connection answers what the peer did wrong: stream errors reset one stream, connection
/// errors send GOAWAY and end everything (RFC 9113 §5.4).
extension HTTP2ServerConnection {
    /// Routes an error: a stream error resets one stream, a connection error ends the connection.
    mutating func handle(_ error: HTTP2ProtocolError, events: inout [HTTP2ConnectionEvent]) {
        switch error.scope {
        case .connection:
            fail(error, events: &events)
        case .stream(let id):
            resetStream(id, code: error.code, events: &events)
            if !floodGuard.chargeControlFrame() {
                fail(.connection(.enhanceYourCalm, "too many stream errors"), events: &events)
            }
        }
    }

    /// Routes a frame the decoder rejected. A stream-level rejection still ends the connection when
    /// it interrupts a header block or replaces the first SETTINGS, or when it is a zero
    /// WINDOW_UPDATE (the decoder's only stream-level PROTOCOL_ERROR) on an idle stream, where any
    /// WINDOW_UPDATE is a connection error (RFC 9113 §5.1, §6.10).
    mutating func handleDecodingError(_ error: HTTP2ProtocolError, events: inout [HTTP2ConnectionEvent]) {
        guard case .stream(let id) = error.scope else {
            fail(error, events: &events)
            return
        }
        if pendingHeaderBlock != nil {
            fail(.connection(.protocolError, "header block interrupted by another frame"), events: &events)
        } else if phase == .awaitingSettings {
            fail(.connection(.protocolError, "connection preface not followed by SETTINGS"), events: &events)
        } else if id > highestStreamID, error.code == .protocolError {
            fail(.connection(.protocolError, "WINDOW_UPDATE on an idle stream", value: Int(id)), events: &events)
        } else {
            handle(error, events: &events)
        }
    }

    /// Sends RST_STREAM for a stream error and drops the stream; the server hears of it when it
    /// knew the stream.
    mutating func resetStream(_ id: UInt32, code: HTTP2ErrorCode, events: inout [HTTP2ConnectionEvent]) {
        HTTP2Frame(streamID: id, payload: .rstStream(code)).encode(into: &controlOutput)
        controlFrames.record(reset: true, sent: true, code: code)
        if let stream = streams.removeValue(forKey: id), stream.delivered {
            events.append(.streamReset(streamID: id, code: code))
        }
        if id <= highestStreamID {
            closedStreams.record(id, .resetByUs)
        }
    }

    /// Ends the connection: GOAWAY with the error, every stream dropped.
    mutating func fail(_ error: HTTP2ProtocolError, events: inout [HTTP2ConnectionEvent]) {
        let reason = error.reasonText
        HTTP2Frame(
            streamID: 0,
            payload: .goaway(lastStreamID: lastAcceptedStreamID, code: error.code, debugData: Array(reason.utf8))
        ).encode(into: &controlOutput)
        controlFrames.record(reset: false, sent: true, code: error.code)
        abandonAllStreams()
        events.append(.connectionError(code: error.code, reason: reason))
    }

    /// Moves to `.closed`, dropping every stream and queued DATA.
    mutating func abandonAllStreams() {
        phase = .closed
        streams.removeAll()
        scheduledStreams.removeAll()
        pendingHeaderBlock = nil
    }

    /// Charges one unproductive frame against the flood budget.
    mutating func chargeControlFrame() throws(HTTP2ProtocolError) {
        guard floodGuard.chargeControlFrame() else {
            throw .connection(.enhanceYourCalm, "too many control frames")
        }
    }
}
