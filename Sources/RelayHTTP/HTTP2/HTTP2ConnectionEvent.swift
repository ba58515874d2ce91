/// What the server has to act on after `HTTP2ServerConnection.receive(_:)`.
public enum HTTP2ConnectionEvent: Sendable {
    /// A complete request: headers validated, END_STREAM seen, body buffered. Answer with
    /// `sendResponse` or `sendHead` + `sendData`.
    case request(streamID: UInt32, request: HTTPRequest, authority: String?, scheme: String?)
    /// A request whose body exceeds `maxRequestBodyBytes` (declared by content-length or seen in
    /// DATA). The body is empty and further DATA is discarded; answer it (413) with `sendResponse`,
    /// after which the stream is reset with NO_ERROR if the client is still sending, or with
    /// `resetStream`.
    case requestTooLarge(streamID: UInt32, request: HTTPRequest, authority: String?, scheme: String?)
    /// A stream the server knows of (from `.request` or `.requestTooLarge`) is gone: the peer
    /// reset it or it broke a rule and we reset it. Drop its work and subscriptions.
    case streamReset(streamID: UInt32, code: HTTP2ErrorCode)
    /// The peer will open no more streams; those already open continue.
    case goawayReceived(lastStreamID: UInt32, code: HTTP2ErrorCode, debugData: [UInt8])
    /// The peer broke the protocol; GOAWAY is queued. Every stream is gone: flush the output and
    /// close the connection.
    case connectionError(code: HTTP2ErrorCode, reason: String)
}
