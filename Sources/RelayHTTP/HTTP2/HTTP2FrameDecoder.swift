/// Cuts a byte stream into HTTP/2 frames (RFC 9113 §4).
///
/// Bytes are appended as they arrive; `nextFrame()` returns nil until a whole frame is buffered.
/// A frame longer than `maxFrameSize` is rejected as soon as its 9-byte header is in, before its
/// payload is buffered. A frame is consumed before its payload is validated, so after a
/// stream-level error decoding simply continues with the next frame.
package struct HTTP2FrameDecoder: Sendable {
    /// The size of the fixed frame header.
    package static let headerLength = 9

    /// The SETTINGS_MAX_FRAME_SIZE this endpoint advertised: the largest payload accepted.
    package var maxFrameSize: Int

    private var buffer: [UInt8] = []
    private var readIndex = 0

    /// A decoder accepting payloads up to `maxFrameSize` bytes.
    package init(maxFrameSize: Int = HTTP2PeerSettings.minMaxFrameSize) {
        self.maxFrameSize = maxFrameSize
    }

    /// The bytes received but not yet returned as frames.
    package var bufferedByteCount: Int { buffer.count - readIndex }

    /// Adds received bytes.
    package mutating func append(_ bytes: [UInt8]) {
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Adds received bytes.
    package mutating func append(_ bytes: ArraySlice<UInt8>) {
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, or nil when more bytes are needed.
    package mutating func nextFrame() throws(HTTP2ProtocolError) -> HTTP2Frame? {
        let available = buffer.count - readIndex
        guard available >= Self.headerLength else { return nil }
        let start = readIndex
        let length = Int(buffer[start]) << 16 | Int(buffer[start + 1]) << 8 | Int(buffer[start + 2])
        let type = HTTP2FrameType(buffer[start + 3])
        let flags = buffer[start + 4]
        let streamID = buffer.readUInt32(at: start + 5) & 0x7fff_ffff
        guard length <= maxFrameSize else {
            throw .connection(.frameSizeError, "frame longer than SETTINGS_MAX_FRAME_SIZE", value: length)
        }
        guard available >= Self.headerLength + length else { return nil }
        let payloadStart = start + Self.headerLength
        readIndex = payloadStart + length
        let payload = buffer[payloadStart..<readIndex]
        compactIfWorthwhile()
        return try HTTP2Frame(type: type, flags: flags, streamID: streamID, payload: payload)
    }

    /// Drops consumed bytes once they dominate the buffer, keeping appends amortised O(n).
    private mutating func compactIfWorthwhile() {
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
        } else if readIndex >= 65_536 && readIndex * 2 >= buffer.count {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
    }
}

extension [UInt8] {
    /// The big-endian 32-bit value at `index`; the caller has checked the bounds.
    func readUInt32(at index: Int) -> UInt32 {
        UInt32(self[index]) << 24 | UInt32(self[index + 1]) << 16 | UInt32(self[index + 2]) << 8
            | UInt32(self[index + 3])
    }
}

extension ArraySlice<UInt8> {
    /// The big-endian 32-bit value `offset` bytes into the slice; the caller has checked the bounds.
    func readUInt32(at offset: Int) -> UInt32 {
        let index = startIndex + offset
        return UInt32(self[index]) << 24 | UInt32(self[index + 1]) << 16 | UInt32(self[index + 2]) << 8
            | UInt32(self[index + 3])
    }

    /// The big-endian 16-bit value `offset` bytes into the slice; the caller has checked the bounds.
    func readUInt16(at offset: Int) -> UInt16 {
        let index = startIndex + offset
        return UInt16(self[index]) << 8 | UInt16(self[index + 1])
    }
}
