extension HTTP2Frame {
    /// Decodes one frame's payload and checks everything that needs no connection state
    /// (RFC 9113 §6): stream 0 or not, fixed lengths, padding, SETTINGS values, zero increments.
    ///
    /// Priority self-dependency is left to the connection: for HEADERS it must be reported only
    /// after the field block has been decompressed, to keep HPACK state in step.
    package init(
        type: HTTP2FrameType, flags rawFlags: UInt8, streamID: UInt32, payload: ArraySlice<UInt8>
    ) throws(HTTP2ProtocolError) {
        let flags = HTTP2FrameFlags(rawValue: rawFlags)
        self.streamID = streamID
        switch type {
        case .data:
            guard streamID != 0 else { throw .connection(.protocolError, "DATA on stream 0") }
            let (body, padding) = try Self.unpad(payload, flags: flags, fixedLength: 0)
            self.payload = .data(bytes: Array(body), endStream: flags.contains(.endStream), padding: padding)
        case .headers:
            guard streamID != 0 else { throw .connection(.protocolError, "HEADERS on stream 0") }
            let hasPriority = flags.contains(.priority)
            let (unpadded, padding) = try Self.unpad(payload, flags: flags, fixedLength: hasPriority ? 5 : 0)
            var block = unpadded
            var priority: HTTP2Priority?
            if hasPriority {
                priority = Self.priority(block)
                block = block.dropFirst(5)
            }
            self.payload = .headers(
                fragment: Array(block), endStream: flags.contains(.endStream),
                endHeaders: flags.contains(.endHeaders), priority: priority, padding: padding)
        case .priority:
            guard streamID != 0 else { throw .connection(.protocolError, "PRIORITY on stream 0") }
            guard payload.count == 5 else {
                throw .stream(streamID, .frameSizeError, "PRIORITY length is not 5", value: payload.count)
            }
            self.payload = .priority(Self.priority(payload))
        case .rstStream:
            guard streamID != 0 else { throw .connection(.protocolError, "RST_STREAM on stream 0") }
            guard payload.count == 4 else {
                throw .connection(.frameSizeError, "RST_STREAM length is not 4", value: payload.count)
            }
            self.payload = .rstStream(HTTP2ErrorCode(payload.readUInt32(at: 0)))
        case .settings:
            self.payload = try Self.settings(payload, flags: flags, streamID: streamID)
        case .pushPromise:
            guard streamID != 0 else { throw .connection(.protocolError, "PUSH_PROMISE on stream 0") }
            let (body, padding) = try Self.unpad(payload, flags: flags, fixedLength: 4)
            self.payload = .pushPromise(
                promisedStreamID: body.readUInt32(at: 0) & 0x7fff_ffff, fragment: Array(body.dropFirst(4)),
                endHeaders: flags.contains(.endHeaders), padding: padding)
        case .ping:
            guard streamID == 0 else { throw .connection(.protocolError, "PING on a stream", value: Int(streamID)) }
            guard payload.count == 8 else {
                throw .connection(.frameSizeError, "PING length is not 8", value: payload.count)
            }
            let opaque = UInt64(payload.readUInt32(at: 0)) << 32 | UInt64(payload.readUInt32(at: 4))
            self.payload = .ping(opaque: opaque, ack: flags.contains(.ack))
        case .goaway:
            guard streamID == 0 else { throw .connection(.protocolError, "GOAWAY on a stream", value: Int(streamID)) }
            guard payload.count >= 8 else {
                throw .connection(.frameSizeError, "GOAWAY shorter than 8 bytes", value: payload.count)
            }
            self.payload = .goaway(
                lastStreamID: payload.readUInt32(at: 0) & 0x7fff_ffff, code: HTTP2ErrorCode(payload.readUInt32(at: 4)),
                debugData: Array(payload.dropFirst(8)))
        case .windowUpdate:
            guard payload.count == 4 else {
                throw .connection(.frameSizeError, "WINDOW_UPDATE length is not 4", value: payload.count)
            }
            let increment = payload.readUInt32(at: 0) & 0x7fff_ffff
            guard increment != 0 else {
                if streamID == 0 { throw .connection(.protocolError, "WINDOW_UPDATE increment of 0") }
                throw .stream(streamID, .protocolError, "WINDOW_UPDATE increment of 0")
            }
            self.payload = .windowUpdate(increment: increment)
        case .continuation:
            guard streamID != 0 else { throw .connection(.protocolError, "CONTINUATION on stream 0") }
            self.payload = .continuation(fragment: Array(payload), endHeaders: flags.contains(.endHeaders))
        default:
            self.payload = .unknown(type: type, flags: rawFlags, bytes: Array(payload))
        }
    }

    /// Splits off the pad-length byte and the padding of a PADDED frame, after checking that the
    /// `fixedLength` mandatory bytes (priority fields, promised stream id) fit before the padding.
    private static func unpad(
        _ payload: ArraySlice<UInt8>, flags: HTTP2FrameFlags, fixedLength: Int
    ) throws(HTTP2ProtocolError) -> (ArraySlice<UInt8>, Int?) {
        guard flags.contains(.padded) else {
            guard payload.count >= fixedLength else {
                throw .connection(.frameSizeError, "frame too short for its mandatory fields", value: payload.count)
            }
            return (payload, nil)
        }
        guard let padLength = payload.first.map(Int.init), payload.count - 1 >= fixedLength else {
            throw .connection(.frameSizeError, "frame too short for its mandatory fields", value: payload.count)
        }
        let rest = payload.dropFirst()
        guard padLength <= rest.count - fixedLength else {
            throw .connection(.protocolError, "padding longer than the frame payload", value: padLength)
        }
        return (rest.dropLast(padLength), padLength)
    }

    /// Reads the 5 priority bytes at the start of `bytes`.
    private static func priority(_ bytes: ArraySlice<UInt8>) -> HTTP2Priority {
        let word = bytes.readUInt32(at: 0)
        return HTTP2Priority(
            exclusive: word & 0x8000_0000 != 0, dependency: word & 0x7fff_ffff, weight: bytes[bytes.startIndex + 4])
    }

    /// Decodes a SETTINGS payload and validates each value (RFC 9113 §6.5).
    private static func settings(
        _ payload: ArraySlice<UInt8>, flags: HTTP2FrameFlags, streamID: UInt32
    ) throws(HTTP2ProtocolError) -> Payload {
        guard streamID == 0 else { throw .connection(.protocolError, "SETTINGS on a stream", value: Int(streamID)) }
        if flags.contains(.ack) {
            guard payload.isEmpty else {
                throw .connection(.frameSizeError, "SETTINGS ACK with a payload", value: payload.count)
            }
            return .settingsAck
        }
        guard payload.count % 6 == 0 else {
            throw .connection(.frameSizeError, "SETTINGS length is not a multiple of 6", value: payload.count)
        }
        var settings: [HTTP2Setting] = []
        settings.reserveCapacity(payload.count / 6)
        var check = HTTP2PeerSettings()
        var offset = 0
        while offset < payload.count {
            let setting = HTTP2Setting(
                HTTP2Setting.Identifier(payload.readUInt16(at: offset)), payload.readUInt32(at: offset + 2))
            try check.apply(setting)
            settings.append(setting)
            offset += 6
        }
        return .settings(settings)
    }
}
