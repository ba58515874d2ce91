extension HTTP2ServerConnection {
    /// Feeds bytes read from the peer; returns what the server must act on, in order.
    ///
    /// Everything the peer did wrong is handled here: stream errors queue RST_STREAM, connection
    /// errors queue GOAWAY and end the connection with `.connectionError`. After that, further
    /// calls return nothing.
    public mutating func receive(_ bytes: [UInt8]) -> [HTTP2ConnectionEvent] {
        var events: [HTTP2ConnectionEvent] = []
        var input = bytes[...]
        if case .preface(let matched) = phase {
            let expected = Self.clientPreface[matched...]
            let count = min(expected.count, input.count)
            guard input.prefix(count).elementsEqual(expected.prefix(count)) else {
                fail(.connection(.protocolError, "invalid connection preface"), events: &events)
                return events
            }
            input = input.dropFirst(count)
            guard matched + count == Self.clientPreface.count else {
                phase = .preface(matched: matched + count)
                return events
            }
            phase = .awaitingSettings
        }
        guard phase != .closed else { return events }
        frameDecoder.append(input)
        while phase != .closed {
            let frame: HTTP2Frame?
            do throws(HTTP2ProtocolError) {
                frame = try frameDecoder.nextFrame()
            } catch {
                handleDecodingError(error, events: &events)
                continue
            }
            guard let frame else { break }
            do throws(HTTP2ProtocolError) {
                try process(frame, events: &events)
            } catch {
                handle(error, events: &events)
            }
        }
        if phase != .closed { creditConnectionWindow() }  // streams reset or delivered free window
        return events
    }

    // MARK: - Frames

    /// Dispatches one frame.
    private mutating func process(_ frame: HTTP2Frame, events: inout [HTTP2ConnectionEvent]) throws(HTTP2ProtocolError)
    {
        if phase == .awaitingSettings {
            guard case .settings = frame.payload else {
                throw .connection(.protocolError, "connection preface not followed by SETTINGS")
            }
            phase = .open
        }
        if pendingHeaderBlock != nil {
            try continueHeaderBlock(frame, events: &events)
            return
        }
        switch frame.payload {
        case .data(let bytes, let endStream, _):
            try receiveData(
                streamID: frame.streamID, bytes: bytes, endStream: endStream,
                flowControlledLength: frame.flowControlledLength, events: &events)
        case .headers(let fragment, let endStream, let endHeaders, let priority, _):
            try startHeaderBlock(
                streamID: frame.streamID, fragment: fragment, endStream: endStream, endHeaders: endHeaders,
                priority: priority, events: &events)
        case .priority(let priority):
            try chargeControlFrame()
            guard priority.dependency != frame.streamID else {
                throw .stream(frame.streamID, .protocolError, "stream depends on itself")
            }
        case .rstStream(let code):
            controlFrames.record(reset: true, sent: false, code: code)
            try receiveReset(streamID: frame.streamID, code: code, events: &events)
        case .settings(let settings):
            try chargeControlFrame()
            try applyPeerSettings(settings)
        case .settingsAck:
            try chargeControlFrame()
            applySettingsAcknowledgement()
        case .pushPromise:
            throw .connection(.protocolError, "PUSH_PROMISE from a client")
        case .ping(let opaque, let ack):
            try chargeControlFrame()
            if !ack {
                HTTP2Frame(streamID: 0, payload: .ping(opaque: opaque, ack: true)).encode(into: &controlOutput)
            }
        case .goaway(let lastStreamID, let code, let debugData):
            try chargeControlFrame()
            goawayReceived = true
            controlFrames.record(reset: false, sent: false, code: code)
            events.append(.goawayReceived(lastStreamID: lastStreamID, code: code, debugData: debugData))
        case .windowUpdate(let increment):
            try chargeControlFrame()
            try receiveWindowUpdate(streamID: frame.streamID, increment: Int(increment))
        case .continuation:
            throw .connection(.protocolError, "CONTINUATION without a header block")
        case .unknown:
            try chargeControlFrame()
        }
    }

    /// DATA: connection flow control first (it applies even to closed streams), then the stream.
    private mutating func receiveData(
        streamID: UInt32, bytes: [UInt8], endStream: Bool, flowControlledLength: Int,
        events: inout [HTTP2ConnectionEvent]
    ) throws(HTTP2ProtocolError) {
        guard streamID <= highestStreamID else {
            throw .connection(.protocolError, "DATA on an idle stream", value: Int(streamID))
        }
        guard receiveWindow.allows(flowControlledLength) else {
            throw .connection(.flowControlError, "DATA beyond the connection window", value: flowControlledLength)
        }
        receiveWindow.consume(flowControlledLength)
        receivedUnacknowledged += flowControlledLength
        defer { creditConnectionWindow() }
        if flowControlledLength == 0 && !endStream {
            try chargeControlFrame()
        }
        // One lookup of the stream; it is then changed in place through its index (nothing
        // below adds or removes streams, so the index stays valid).
        guard let index = streams.index(forKey: streamID) else {
            try checkFrameOnInactiveStream(streamID, "DATA on a closed stream")
            return
        }
        let outcome = try streams.values[index].receiveData(
            bytes, flowControlledLength: flowControlledLength, endStream: endStream,
            maxBodyBytes: configuration.maxRequestBodyBytes)
        switch outcome {
        case .becameTooLarge:
            deliver(streamAt: index, streamID: streamID, tooLarge: true, events: &events)
        case .complete:
            deliver(streamAt: index, streamID: streamID, tooLarge: false, events: &events)
        case .pending, .completeDiscarded:
            break
        }
        if let credit = streams.values[index].takeWindowCredit(initialWindowSize: localInitialWindowSize) {
            HTTP2Frame(streamID: streamID, payload: .windowUpdate(increment: UInt32(credit)))
                .encode(into: &controlOutput)
        }
    }

    /// Decides what a DATA or HEADERS frame on a stream that is no longer active means
    /// (RFC 9113 §5.1): ignored after our RST_STREAM or above our GOAWAY, a stream error after
    /// the peer's RST_STREAM, a connection error after a normal close.
    func checkFrameOnInactiveStream(_ streamID: UInt32, _ reason: StaticString) throws(HTTP2ProtocolError) {
        if let goawayLastStreamID, streamID > goawayLastStreamID { return }
        switch closedStreams.reason(for: streamID) {
        case .resetByUs?:
            return
        case .ended?:
            throw .connection(.streamClosed, reason, value: Int(streamID))
        case .resetByPeer?, nil:
            throw .stream(streamID, .streamClosed, reason)
        }
    }

    /// Returns consumed connection window to the client once half of it is used, except the bytes
    /// still held in request bodies not yet handed to the server: window is granted as bodies are
    /// consumed, so the connection window (`connectionWindowSize`) bounds what one connection's
    /// unfinished requests hold, however many streams share it.
    mutating func creditConnectionWindow() {
        guard receivedUnacknowledged >= configuration.connectionWindowSize / 2 else { return }
        let credit = receivedUnacknowledged - heldRequestBytes
        guard credit >= configuration.connectionWindowSize / 2 else { return }
        HTTP2Frame(streamID: 0, payload: .windowUpdate(increment: UInt32(credit)))
            .encode(into: &controlOutput)
        _ = receiveWindow.increase(by: credit)
        receivedUnacknowledged -= credit
    }

    /// Request body bytes buffered on streams whose request has not been delivered.
    package var heldRequestBytes: Int {
        streams.values.reduce(0) { held, stream in stream.delivered ? held : held + stream.body.count }
    }

    /// Hands a finished (or too large) request to the server.
    mutating func deliver(_ streamID: UInt32, tooLarge: Bool, events: inout [HTTP2ConnectionEvent]) {
        guard let index = streams.index(forKey: streamID) else { return }
        deliver(streamAt: index, streamID: streamID, tooLarge: tooLarge, events: &events)
    }

    /// `deliver(_:tooLarge:events:)` for the stream at `index` in `streams`.
    mutating func deliver(
        streamAt index: Dictionary<UInt32, HTTP2Stream>.Index, streamID: UInt32, tooLarge: Bool,
        events: inout [HTTP2ConnectionEvent]
    ) {
        guard let head = streams.values[index].head else { return }
        let body = streams.values[index].takeBody()
        streams.values[index].delivered = true
        let request = head.request(body: tooLarge ? [] : body)
        if tooLarge {
            events.append(
                .requestTooLarge(streamID: streamID, request: request, authority: head.authority, scheme: head.scheme))
        } else {
            events.append(
                .request(streamID: streamID, request: request, authority: head.authority, scheme: head.scheme))
        }
    }

    /// RST_STREAM from the client.
    private mutating func receiveReset(
        streamID: UInt32, code: HTTP2ErrorCode, events: inout [HTTP2ConnectionEvent]
    ) throws(HTTP2ProtocolError) {
        guard streamID <= highestStreamID else {
            throw .connection(.protocolError, "RST_STREAM on an idle stream", value: Int(streamID))
        }
        guard let stream = streams.removeValue(forKey: streamID) else {
            try chargeControlFrame()
            return
        }
        closedStreams.record(streamID, .resetByPeer)
        if stream.delivered {
            events.append(.streamReset(streamID: streamID, code: code))
        }
        guard floodGuard.chargeReset() else {
            throw .connection(.enhanceYourCalm, "too many streams reset by the client")
        }
    }

    /// WINDOW_UPDATE from the client: more room for our DATA.
    private mutating func receiveWindowUpdate(streamID: UInt32, increment: Int) throws(HTTP2ProtocolError) {
        if streamID == 0 {
            guard sendWindow.increase(by: increment) else {
                throw .connection(.flowControlError, "connection window above 2^31-1", value: increment)
            }
            return
        }
        guard streamID <= highestStreamID else {
            throw .connection(.protocolError, "WINDOW_UPDATE on an idle stream", value: Int(streamID))
        }
        guard streams[streamID]?.sendWindow.increase(by: increment) != false else {
            throw .stream(streamID, .flowControlError, "stream window above 2^31-1", value: increment)
        }
    }

    /// SETTINGS from the client, applied in order, then acknowledged (RFC 9113 §6.5.3).
    private mutating func applyPeerSettings(_ settings: [HTTP2Setting]) throws(HTTP2ProtocolError) {
        for setting in settings {
            let previousWindow = peerSettings.initialWindowSize
            try peerSettings.apply(setting)
            switch setting.identifier {
            case .initialWindowSize:
                let delta = peerSettings.initialWindowSize - previousWindow
                for id in Array(streams.keys) where streams[id]?.sendWindow.adjust(by: delta) == false {
                    throw .connection(.flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE overflows a stream window")
                }
            case .headerTableSize:
                headerEncoder.setMaxTableSize(min(peerSettings.headerTableSize, HPACKEncoder.protocolInitialTableSize))
            default:
                break
            }
        }
        HTTP2Frame(streamID: 0, payload: .settingsAck).encode(into: &controlOutput)
    }

    /// The client applied our oldest outstanding SETTINGS: our new receive window now holds.
    private mutating func applySettingsAcknowledgement() {
        guard !unacknowledgedSettings.isEmpty else { return }
        for setting in unacknowledgedSettings.removeFirst() where setting.identifier == .initialWindowSize {
            let delta = Int(setting.value) - localInitialWindowSize
            localInitialWindowSize = Int(setting.value)
            for id in Array(streams.keys) {
                _ = streams[id]?.receiveWindow.adjust(by: delta)
            }
        }
    }
}
