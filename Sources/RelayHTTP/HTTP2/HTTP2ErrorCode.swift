/// An HTTP/2 error code (RFC 9113 §7), carried by RST_STREAM and GOAWAY.
///
/// An open struct rather than an enum: codes from extensions or future revisions decode to a value
/// that prints as hex and re-encodes unchanged.
public struct HTTP2ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 32-bit code as it appears on the wire.
    public var rawValue: UInt32

    /// Wraps any 32-bit code, known or not.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Wraps any 32-bit code, known or not.
    package init(_ rawValue: UInt32) { self.rawValue = rawValue }

    /// Graceful shutdown, or a stream closed without an error.
    package static let noError = HTTP2ErrorCode(0x0)
    /// A generic protocol violation.
    package static let protocolError = HTTP2ErrorCode(0x1)
    /// The endpoint hit an unexpected internal error.
    package static let internalError = HTTP2ErrorCode(0x2)
    /// The peer broke the flow-control protocol.
    package static let flowControlError = HTTP2ErrorCode(0x3)
    /// A SETTINGS frame was not acknowledged in time.
    package static let settingsTimeout = HTTP2ErrorCode(0x4)
    /// A frame arrived on a stream that was already half-closed or closed.
    package static let streamClosed = HTTP2ErrorCode(0x5)
    /// A frame had an invalid size.
    package static let frameSizeError = HTTP2ErrorCode(0x6)
    /// The stream was refused before any processing; the request may be retried.
    package static let refusedStream = HTTP2ErrorCode(0x7)
    /// The stream is no longer needed.
    package static let cancel = HTTP2ErrorCode(0x8)
    /// The HPACK compression context could not be maintained.
    package static let compressionError = HTTP2ErrorCode(0x9)
    /// A CONNECT tunnel was reset or closed abnormally.
    package static let connectError = HTTP2ErrorCode(0xa)
    /// The peer is generating excessive load.
    package static let enhanceYourCalm = HTTP2ErrorCode(0xb)
    /// The transport does not meet minimum security requirements.
    package static let inadequateSecurity = HTTP2ErrorCode(0xc)
    /// The request must be retried over HTTP/1.1.
    package static let http11Required = HTTP2ErrorCode(0xd)

    /// The RFC name (`PROTOCOL_ERROR`), or `0x` and the hex value for unknown codes.
    public var description: String {
        switch rawValue {
        case 0x0: return "NO_ERROR"
        case 0x1: return "PROTOCOL_ERROR"
        case 0x2: return "INTERNAL_ERROR"
        case 0x3: return "FLOW_CONTROL_ERROR"
        case 0x4: return "SETTINGS_TIMEOUT"
        case 0x5: return "STREAM_CLOSED"
        case 0x6: return "FRAME_SIZE_ERROR"
        case 0x7: return "REFUSED_STREAM"
        case 0x8: return "CANCEL"
        case 0x9: return "COMPRESSION_ERROR"
        case 0xa: return "CONNECT_ERROR"
        case 0xb: return "ENHANCE_YOUR_CALM"
        case 0xc: return "INADEQUATE_SECURITY"
        case 0xd: return "HTTP_1_1_REQUIRED"
        default: return "0x" + String(rawValue, radix: 16)
        }
    }
}
