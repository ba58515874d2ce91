public import RelayNet
import RelayCore
import RelayHTTP

/// The `ConnectionHandler` of every TLS connection: speaks HTTP/2 when ALPN chose `h2`, else
/// HTTP/1.1, and hands complete requests to the `Responder`.
public final class HTTPConnectionHandler: ConnectionHandler {
    private let responder: any Responder
    private let limits: HTTPLimits
    private let providerTokenRefreshInterval: Double
    private var session: (any HTTPSession)?

    public init(responder: any Responder, limits: HTTPLimits, providerTokenRefreshInterval: Double) {
        self.responder = responder
        self.limits = limits
        self.providerTokenRefreshInterval = providerTokenRefreshInterval
    }

    public func connectionReady(_ connection: Connection) {
        let isH2 = connection.alpnProtocol == "h2"
        let context = ConnectionContext(
            id: connection.id, remoteAddress: connection.remoteAddress, httpVersion: isH2 ? "h2" : "http/1.1",
            peerCertificateDER: connection.peerCertificateDER,
            providerTokens: ProviderTokenChurn(minimumInterval: providerTokenRefreshInterval))
        RelayLog.debug(
            "conn.open",
            ["conn": String(connection.id), "peer": connection.remoteAddress, "alpn": connection.alpnProtocol ?? "none"])
        if isH2 {
            session = HTTP2Session(connection: connection, context: context, responder: responder, limits: limits)
        } else {
            session = HTTP1Session(connection: connection, context: context, responder: responder, limits: limits)
        }
        session?.start()
    }

    public func connection(_ connection: Connection, received bytes: [UInt8]) {
        session?.received(bytes)
    }

    public func connectionWritable(_ connection: Connection) {
        session?.writable()
    }

    public func connectionClosed(_ connection: Connection, error: (any Error)?) {
        session?.closed()
        session = nil
        RelayLog.debug("conn.close", ["conn": String(connection.id), "error": error.map { "\($0)" } ?? "none"])
    }

    public func shutdownRequested(_ connection: Connection) {
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
    /// `{"error": code, "message": message}` with `status`.
    static func response(status: Int, code: String, message: String) -> HTTPResponse {
        let body: JSONValue = ["error": .string(code), "message": .string(message)]
        var headers = HTTPHeaders()
        headers.add("content-type", "application/json")
        return HTTPResponse(status: status, headers: headers, body: body.serialized())
    }
}
