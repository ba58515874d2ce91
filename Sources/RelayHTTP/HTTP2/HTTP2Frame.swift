/// One HTTP/2 frame (RFC 9113 §4.1), decoded or ready to encode.
///
/// Flags live inside the payload cases as named booleans, so a frame value cannot carry a flag its
/// type does not define. Padding is kept as a count so decoded DATA frames know their
/// flow-controlled length and tests can produce padded frames.
package struct HTTP2Frame: Hashable, Sendable {
    /// The stream this frame belongs to; 0 for connection-level frames. The reserved bit is cleared.
    package var streamID: UInt32
    /// What the frame says.
    package var payload: Payload

    package init(streamID: UInt32, payload: Payload) {
        self.streamID = streamID
        self.payload = payload
    }

    /// The frame payload, one case per frame type.
    package enum Payload: Hashable, Sendable {
        /// DATA: body bytes; `padding` counts the pad bytes after them (nil when not PADDED).
        case data(bytes: [UInt8], endStream: Bool, padding: Int? = nil)
        /// HEADERS: a field block fragment, with the optional deprecated priority fields.
        case headers(
            fragment: [UInt8], endStream: Bool, endHeaders: Bool, priority: HTTP2Priority? = nil, padding: Int? = nil)
        /// PRIORITY: deprecated by RFC 9113; accepted and ignored.
        case priority(HTTP2Priority)
        /// RST_STREAM: the sender abandons the stream.
        case rstStream(HTTP2ErrorCode)
        /// SETTINGS without ACK: parameters in the order sent.
        case settings([HTTP2Setting])
        /// SETTINGS with ACK: the peer applied our last SETTINGS.
        case settingsAck
        /// PUSH_PROMISE: only servers may send it.
        case pushPromise(promisedStreamID: UInt32, fragment: [UInt8], endHeaders: Bool, padding: Int? = nil)
        /// PING: eight opaque bytes, echoed back with ACK.
        case ping(opaque: UInt64, ack: Bool)
        /// GOAWAY: the last stream the sender processed, why, and free-form debug bytes.
        case goaway(lastStreamID: UInt32, code: HTTP2ErrorCode, debugData: [UInt8])
        /// WINDOW_UPDATE: a flow-control credit for the stream, or the connection on stream 0.
        case windowUpdate(increment: UInt32)
        /// CONTINUATION: more of the field block a HEADERS or PUSH_PROMISE started.
        case continuation(fragment: [UInt8], endHeaders: Bool)
        /// A frame type this implementation does not know; received ones are ignored.
        case unknown(type: HTTP2FrameType, flags: UInt8, bytes: [UInt8])
    }

    /// The frame's type byte.
    package var type: HTTP2FrameType {
        switch payload {
        case .data: return .data
        case .headers: return .headers
        case .priority: return .priority
        case .rstStream: return .rstStream
        case .settings, .settingsAck: return .settings
        case .pushPromise: return .pushPromise
        case .ping: return .ping
        case .goaway: return .goaway
        case .windowUpdate: return .windowUpdate
        case .continuation: return .continuation
        case .unknown(let type, _, _): return type
        }
    }

    /// The bytes of a DATA frame that count against flow-control windows: the whole payload,
    /// padding and pad-length byte included (RFC 9113 §6.9.1). Zero for every other type.
    package var flowControlledLength: Int {
        guard case .data(let bytes, _, let padding) = payload else { return 0 }
        return bytes.count + (padding.map { $0 + 1 } ?? 0)
    }
}

/// The priority fields of HEADERS and PRIORITY frames (RFC 7540 §5.3, deprecated by RFC 9113).
/// Parsed so their size and self-dependency can be checked, then ignored.
package struct HTTP2Priority: Hashable, Sendable {
    /// Whether the dependency is exclusive.
    package var exclusive: Bool
    /// The stream this one depends on.
    package var dependency: UInt32
    /// The weight byte as sent (weight minus one).
    package var weight: UInt8

    package init(exclusive: Bool = false, dependency: UInt32 = 0, weight: UInt8 = 15) {
        self.exclusive = exclusive
        self.dependency = dependency
        self.weight = weight
    }
}
