import RelayCore
import RelayHTTP
import RelayJSON
package import RelayNet

/// The `ConnectionHandler` of every TLS connection: speaks HTTP/2 when ALPN chose `h2`, else
/// HTTP/1.1, and hands complete requests to the `Responder`.
///
/// A client that negotiated no ALPN protocol at all and opens with the HTTP/2 connection preface
/// gets HTTP/2 ("prior knowledge"): APNs accepts such clients, and APNs libraries exist that
/// never set ALPN (aioapns). Without ALPN the first bytes decide; anything else is HTTP/1.1.
package final class HTTPConnectionHandler: ConnectionHandler {
    private let responder: any Responder
    private let limits: HTTPLimits
    private let providerTokenRefreshInterval: Double
    private var session: (any HTTPSession)?
    /// Bytes of a connection without ALPN, held until they show which protocol it speaks.
    private var sniffed: [UInt8]?
    /// Closes a connection without ALPN that does not show its protocol within `headerReadTimeout`.
    private var sniffTimer: TimerID?
    /// The HTTP/2 client connection preface (RFC 9113 §3.4).
    private static let http2Preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    package init(responder: any Responder, limits: HTTPLimits, providerTokenRefreshInterval: Double) {
        self.responder = responder
        self.limits = limits
        self.providerTokenRefreshInterval = providerTokenRefreshInterval
    }

    package func connectionReady(_ connection: Connection) {
        if connection.alpnProtocol == nil {
            sniffed = []
            sniffTimer = connection.loop.schedule(after: limits.headerReadTimeout) { [weak self] in
                guard let self, self.sniffed != nil else { return }
                RelayLog.info("conn.sniff.timeout", ["conn": String(connection.id)])
                self.sniffed = nil
                connection.close()
            }
            return
        }
        startSession(connection, isH2: connection.alpnProtocol == "h2")
    }

    private func startSession(_ connection: Connection, isH2: Bool) {
        let context = ConnectionContext(
            id: connection.id, remoteAddress: connection.remoteAddress, httpVersion: isH2 ? "h2" : "http/1.1",
            peerCertificateDER: connection.peerCertificateDER,
            providerTokens: ProviderTokenChurn(minimumInterval: providerTokenRefreshInterval))
        RelayLog.debug(
            "conn.open",
            [
                "conn": String(connection.id), "peer": connection.remoteAddress,
                "alpn": connection.alpnProtocol ?? "none",
            ])
        if isH2 {
            session = HTTP2Session(connection: connection, context: context, responder: responder, limits: limits)
        } else {
            session = HTTP1Session(connection: connection, context: context, responder: responder, limits: limits)
        }
        session?.start()
    }

    package func connection(_ connection: Connection, received bytes: [UInt8]) {
        guard var held = sniffed else {
            session?.received(bytes)
            return
        }
        held += bytes
        let preface = Self.http2Preface
        let compared = min(held.count, preface.count)
        let matches = held.prefix(compared).elementsEqual(preface.prefix(compared))
        guard !matches || held.count >= preface.count else {
            sniffed = held
            return
        }
        sniffed = nil
        if let sniffTimer { connection.loop.cancel(sniffTimer) }
        sniffTimer = nil
        startSession(connection, isH2: matches)
        session?.received(held)
    }

    package func connectionWritable(_ connection: Connection) {
        session?.writable()
    }

    package func connectionClosed(_ connection: Connection, error: (any Error)?) {
        if let sniffTimer { connection.loop.cancel(sniffTimer) }
        sniffTimer = nil
        sniffed = nil
        session?.closed()
        session = nil
        RelayLog.debug("conn.close", ["conn": String(connection.id), "error": error.map { "\($0)" } ?? "none"])
    }

    package func shutdownRequested(_ connection: Connection) {
        if sniffed != nil { connection.close() }
        session?.shutdown()
    }
}

/// One protocol's side of a connection. All calls happen on the connection's loop.
protocol HTTPSession: AnyObject {
    func start()
    func received(_ bytes: [UInt8])
    func writable()
    func closed()
    func shutdown()
}

/// Error bodies the transport answers with itself (before any route saw the request).
enum TransportError {
    /// What an over-limit body is answered, `413 tooLarge`, on every route and HTTP version.
    static let bodyTooLargeMessage = "the request body is larger than the relay accepts (http.maxBodyBytes)"

    /// `{"error": code, "message": message}` with `status`.
    static func response(status: Int, code: String, message: String) -> HTTPResponse {
        let body: JSONValue = ["error": .string(code), "message": .string(message)]
        var headers = HTTPHeaders()
        headers.add("content-type", "application/json")
        return HTTPResponse(status: status, headers: headers, body: body.serialized())
    }
}
