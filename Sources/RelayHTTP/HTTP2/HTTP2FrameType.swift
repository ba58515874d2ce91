/// The type byte of an HTTP/2 frame (RFC 9113 §6).
///
/// Open so that extension frame types decode, are ignored as the RFC requires, and print readably.
package struct HTTP2FrameType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The type byte as it appears on the wire.
    package var rawValue: UInt8

    /// Wraps any type byte, known or not.
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Wraps any type byte, known or not.
    package init(_ rawValue: UInt8) { self.rawValue = rawValue }

    package static let data = HTTP2FrameType(0x0)
    package static let headers = HTTP2FrameType(0x1)
    package static let priority = HTTP2FrameType(0x2)
    package static let rstStream = HTTP2FrameType(0x3)
    package static let settings = HTTP2FrameType(0x4)
    package static let pushPromise = HTTP2FrameType(0x5)
    package static let ping = HTTP2FrameType(0x6)
    package static let goaway = HTTP2FrameType(0x7)
    package static let windowUpdate = HTTP2FrameType(0x8)
    package static let continuation = HTTP2FrameType(0x9)

    /// The RFC name (`HEADERS`), or `0x` and the hex value for extension types.
    package var description: String {
        switch rawValue {
        case 0x0: return "DATA"
        case 0x1: return "HEADERS"
        case 0x2: return "PRIORITY"
        case 0x3: return "RST_STREAM"
        case 0x4: return "SETTINGS"
        case 0x5: return "PUSH_PROMISE"
        case 0x6: return "PING"
        case 0x7: return "GOAWAY"
        case 0x8: return "WINDOW_UPDATE"
        case 0x9: return "CONTINUATION"
        default: return "0x" + String(rawValue, radix: 16)
        }
    }
}

/// The flag bits of a frame header. Meaning depends on the frame type; bits a type does not define
/// are ignored on receipt and never sent.
package struct HTTP2FrameFlags: OptionSet, Hashable, Sendable {
    package var rawValue: UInt8

    package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// DATA, HEADERS: the last frame the sender will send on this stream.
    package static let endStream = HTTP2FrameFlags(rawValue: 0x1)
    /// SETTINGS, PING: this frame acknowledges the peer's.
    package static let ack = HTTP2FrameFlags(rawValue: 0x1)
    /// HEADERS, PUSH_PROMISE, CONTINUATION: the field block ends in this frame.
    package static let endHeaders = HTTP2FrameFlags(rawValue: 0x4)
    /// DATA, HEADERS, PUSH_PROMISE: a pad-length byte and padding surround the payload.
    package static let padded = HTTP2FrameFlags(rawValue: 0x8)
    /// HEADERS: the deprecated priority fields precede the field block.
    package static let priority = HTTP2FrameFlags(rawValue: 0x20)
}
