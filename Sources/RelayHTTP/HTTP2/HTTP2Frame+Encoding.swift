extension HTTP2Frame {
    /// Appends the frame's wire form (RFC 9113 §4.1) to `buffer`.
    ///
    /// The caller keeps payloads within the peer's SETTINGS_MAX_FRAME_SIZE; the connection splits
    /// DATA and field blocks before building frames. Padding is written as zero bytes.
    package func encode(into buffer: inout [UInt8]) {
        switch payload {
        case .data(let bytes, let endStream, let padding):
            var flags: HTTP2FrameFlags = endStream ? .endStream : []
            if padding != nil { flags.insert(.padded) }
            writeHeader(length: bytes.count + Self.paddingOverhead(padding), flags: flags, into: &buffer)
            writePadded(bytes[...], padding: padding, into: &buffer)
        case .headers(let fragment, let endStream, let endHeaders, let priority, let padding):
            var flags: HTTP2FrameFlags = []
            if endStream { flags.insert(.endStream) }
            if endHeaders { flags.insert(.endHeaders) }
            if padding != nil { flags.insert(.padded) }
            if priority != nil { flags.insert(.priority) }
            let length = fragment.count + Self.paddingOverhead(padding) + (priority == nil ? 0 : 5)
            writeHeader(length: length, flags: flags, into: &buffer)
            if let padding { buffer.append(UInt8(truncatingIfNeeded: padding)) }
            if let priority { Self.write(priority, into: &buffer) }
            buffer.append(contentsOf: fragment)
            if let padding { buffer.append(contentsOf: repeatElement(0, count: padding)) }
        case .priority(let priority):
            writeHeader(length: 5, flags: [], into: &buffer)
            Self.write(priority, into: &buffer)
        case .rstStream(let code):
            writeHeader(length: 4, flags: [], into: &buffer)
            Self.write(code.rawValue, into: &buffer)
        case .settings(let settings):
            writeHeader(length: settings.count * 6, flags: [], into: &buffer)
            for setting in settings {
                buffer.append(UInt8(truncatingIfNeeded: setting.identifier.rawValue >> 8))
                buffer.append(UInt8(truncatingIfNeeded: setting.identifier.rawValue))
                Self.write(setting.value, into: &buffer)
            }
        case .settingsAck:
            writeHeader(length: 0, flags: .ack, into: &buffer)
        case .pushPromise(let promisedStreamID, let fragment, let endHeaders, let padding):
            var flags: HTTP2FrameFlags = endHeaders ? .endHeaders : []
            if padding != nil { flags.insert(.padded) }
            writeHeader(length: 4 + fragment.count + Self.paddingOverhead(padding), flags: flags, into: &buffer)
            if let padding { buffer.append(UInt8(truncatingIfNeeded: padding)) }
            Self.write(promisedStreamID & 0x7fff_ffff, into: &buffer)
            buffer.append(contentsOf: fragment)
            if let padding { buffer.append(contentsOf: repeatElement(0, count: padding)) }
        case .ping(let opaque, let ack):
            writeHeader(length: 8, flags: ack ? .ack : [], into: &buffer)
            Self.write(UInt32(truncatingIfNeeded: opaque >> 32), into: &buffer)
            Self.write(UInt32(truncatingIfNeeded: opaque), into: &buffer)
        case .goaway(let lastStreamID, let code, let debugData):
            writeHeader(length: 8 + debugData.count, flags: [], into: &buffer)
            Self.write(lastStreamID & 0x7fff_ffff, into: &buffer)
            Self.write(code.rawValue, into: &buffer)
            buffer.append(contentsOf: debugData)
        case .windowUpdate(let increment):
            writeHeader(length: 4, flags: [], into: &buffer)
            Self.write(increment & 0x7fff_ffff, into: &buffer)
        case .continuation(let fragment, let endHeaders):
            writeHeader(length: fragment.count, flags: endHeaders ? .endHeaders : [], into: &buffer)
            buffer.append(contentsOf: fragment)
        case .unknown(_, let flags, let bytes):
            writeHeader(length: bytes.count, flags: HTTP2FrameFlags(rawValue: flags), into: &buffer)
            buffer.append(contentsOf: bytes)
        }
    }

    /// The frame's wire form as a new array.
    package var encoded: [UInt8] {
        var buffer: [UInt8] = []
        encode(into: &buffer)
        return buffer
    }

    /// Appends a DATA frame header and `bytes` without building a frame value: the response hot path.
    static func encodeData(
        streamID: UInt32, bytes: ArraySlice<UInt8>, endStream: Bool, into buffer: inout [UInt8]
    ) {
        writeHeader(
            length: bytes.count, type: .data, flags: endStream ? .endStream : [], streamID: streamID, into: &buffer)
        buffer.append(contentsOf: bytes)
    }

    /// Appends a 9-byte frame header.
    static func writeHeader(
        length: Int, type: HTTP2FrameType, flags: HTTP2FrameFlags, streamID: UInt32, into buffer: inout [UInt8]
    ) {
        buffer.append(UInt8(truncatingIfNeeded: length >> 16))
        buffer.append(UInt8(truncatingIfNeeded: length >> 8))
        buffer.append(UInt8(truncatingIfNeeded: length))
        buffer.append(type.rawValue)
        buffer.append(flags.rawValue)
        write(streamID & 0x7fff_ffff, into: &buffer)
    }

    private func writeHeader(length: Int, flags: HTTP2FrameFlags, into buffer: inout [UInt8]) {
        Self.writeHeader(length: length, type: type, flags: flags, streamID: streamID, into: &buffer)
    }

    private func writePadded(_ bytes: ArraySlice<UInt8>, padding: Int?, into buffer: inout [UInt8]) {
        if let padding { buffer.append(UInt8(truncatingIfNeeded: padding)) }
        buffer.append(contentsOf: bytes)
        if let padding { buffer.append(contentsOf: repeatElement(0, count: padding)) }
    }

    private static func paddingOverhead(_ padding: Int?) -> Int { padding.map { $0 + 1 } ?? 0 }

    private static func write(_ priority: HTTP2Priority, into buffer: inout [UInt8]) {
        write((priority.exclusive ? 0x8000_0000 : 0) | priority.dependency & 0x7fff_ffff, into: &buffer)
        buffer.append(priority.weight)
    }

    static func write(_ value: UInt32, into buffer: inout [UInt8]) {
        buffer.append(UInt8(truncatingIfNeeded: value >> 24))
        buffer.append(UInt8(truncatingIfNeeded: value >> 16))
        buffer.append(UInt8(truncatingIfNeeded: value >> 8))
        buffer.append(UInt8(truncatingIfNeeded: value))
    }
}
