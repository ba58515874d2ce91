public import RelayCore
public import RelayHTTP
package import Synchronization

/// What a route knows about the connection a request came on. Confined to that connection's
/// event loop: read and change it only in `Responder.handle` (which runs there).
public final class ConnectionContext: @unchecked Sendable {
    // Sendable: only touched on the connection's loop thread.
    package let id: UInt64
    package let remoteAddress: String
    /// `h2` or `http/1.1`.
    package let httpVersion: String
    /// The client certificate (DER) when client certificates are verified.
    package let peerCertificateDER: [UInt8]?
    /// The provider-token state of this connection (APNs binds tokens to connections).
    package var providerTokens: ProviderTokenChurn
    /// Opens the HTTP/2 one-stream gate; set by the session.
    var openGate: (() -> Void)?
    /// Sends a graceful GOAWAY carrying `{"reason": ...}`; set once by the HTTP/2 session before
    /// any request is dispatched, nil on HTTP/1.1.
    var goaway: (@Sendable (String) -> Void)?
    /// Provider API requests refused in a row on this connection (any thread). APNs closes a
    /// connection after too many errors; the provider routes count here and reset on success.
    package let providerRefusalsInARow = Atomic<Int>(0)
    /// The last token's `authorization` as the push log shows it, with the raw token it is for:
    /// a connection sends one token for many pushes, and writing it out again cost every push.
    private var lastRedactedAuthorization: (raw: String, text: String)?
    /// Device pushes that passed their checks on this connection (for GOAWAY faults' `afterStreams`).
    var providerPushes = 0
    /// Ends a stream as an injected fault asks, from any thread: with a GOAWAY reason, the stream
    /// is refused (RST_STREAM REFUSED_STREAM) and the connection gets GOAWAY; with nil, the
    /// connection is reset. Set by the HTTP/2 session.
    var injectClose: (@Sendable (_ streamID: UInt32, _ goawayReason: String?) -> Void)?
    /// Runs `work` on the connection's loop after `seconds`, from any thread (injected latency);
    /// set by the HTTP/2 session.
    var runAfter: (@Sendable (_ seconds: Double, _ work: @escaping @Sendable () -> Void) -> Void)?

    /// A context; the server makes one per connection, tests make their own.
    public init(
        id: UInt64 = 0, remoteAddress: String = "test", httpVersion: String = "h2", peerCertificateDER: [UInt8]? = nil,
        providerTokens: ProviderTokenChurn = ProviderTokenChurn()
    ) {
        self.id = id
        self.remoteAddress = remoteAddress
        self.httpVersion = httpVersion
        self.peerCertificateDER = peerCertificateDER
        self.providerTokens = providerTokens
    }

    /// `ProviderRequestRecord.redacted(token)`, remembered for the connection's latest token.
    func redactedAuthorization(_ token: ProviderToken?) -> String {
        guard let token else { return ProviderRequestRecord.redacted(nil) }
        if let last = lastRedactedAuthorization, last.raw == token.raw { return last.text }
        let text = ProviderRequestRecord.redacted(token)
        lastRedactedAuthorization = (token.raw, text)
        return text
    }

    /// Closes an HTTP/2 connection as APNs does: GOAWAY (NO_ERROR, so requests already accepted
    /// are still answered) whose debug data is `{"reason": reason}`, then the socket closes once
    /// those streams end. Callable from any thread; does nothing on HTTP/1.1.
    package func closeWithGoaway(reason: String) {
        goaway?(reason)
    }

    /// The connection has shown what it is: lift the one-stream limit (no-op after the first call).
    package func markTrusted() {
        openGate?()
        openGate = nil
    }
}

/// A request as routes receive it.
public struct ServerRequest: Sendable {
    public var request: HTTPRequest
    package let context: ConnectionContext
    /// The HTTP/2 stream the request came on (0 on HTTP/1.1), for log lines.
    package var streamID: UInt32
    /// True when the body was over the limit and was discarded: answer 413 in the route's own shape.
    public var bodyTooLarge: Bool

    public init(request: HTTPRequest, context: ConnectionContext, bodyTooLarge: Bool = false, streamID: UInt32 = 0) {
        self.request = request
        self.context = context
        self.streamID = streamID
        self.bodyTooLarge = bodyTooLarge
    }
}

/// A route's answer: a whole response, a head followed by a body made page by page as the peer
/// reads, or a head followed by a body that streams.
public enum ServerResponse: Sendable {
    case full(HTTPResponse)
    /// The head, then the body `pages` makes as the connection has room (list answers).
    case paged(HTTPResponseHead, any ResponsePages)
    /// The head is sent, then `start` runs on the connection's loop with the stream to write to.
    case stream(HTTPResponseHead, start: @Sendable (ResponseStream) -> Void)
}

/// Answers requests. `handle` runs on the connection's loop; `respond` must be called exactly
/// once, from any thread (the durable routes call it after their commit).
package protocol Responder: Sendable {
    func handle(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void)
}
