public import RelayHTTP
public import RelayNet

/// One `GET /v1/stream` over HTTP/1.1 and TLS, read as Server-Sent Events: for the terminal
/// renderer, tests and the load generator. Resuming is the caller's: open a new connection with
/// `lastEventID`.
public final class EventStreamConnection {
    /// What one wait produced.
    public enum Next: Sendable, Equatable {
        /// Events completed by the bytes that arrived (possibly none: a heartbeat, a partial event).
        case events([SSEEvent])
        /// Nothing arrived within the timeout.
        case timedOut
        /// The server ended the stream (it can be resumed).
        case ended
    }

    /// The HTTP connection underneath.
    public let connection: HTTPSConnection
    /// The response's headers.
    package let headers: HTTPHeaders
    private var parser = SSEParser()

    /// Connects and opens the stream at `target` (for example `/v1/stream?deviceId=...`) with a
    /// bearer key (nil when the target carries a ticket), resuming after `lastEventID` when given.
    /// Anything but `200 text/event-stream` is `.status` with the body.
    public static func open(
        host: String, port: UInt16, context: TLSClientContext, target: String, bearer: String?,
        lastEventID: String? = nil,
        timeout: Double = 10, receiveBufferBytes: Int? = nil
    ) throws(HTTPSClientError) -> EventStreamConnection {
        let connection = try HTTPSConnection.connect(
            host: host, port: port, context: context, timeout: timeout, receiveBufferBytes: receiveBufferBytes)
        do throws(HTTPSClientError) {
            var headers = [("accept", "text/event-stream")]
            if let bearer { headers.append(("authorization", "bearer \(bearer)")) }
            if let lastEventID, !lastEventID.isEmpty { headers.append(("last-event-id", lastEventID)) }
            try connection.send("GET", target, headers: headers, timeout: timeout)
            let (status, responseHeaders) = try connection.readHead(timeout: timeout)
            guard status == 200, responseHeaders["content-type"]?.hasPrefix("text/event-stream") == true else {
                var body: [UInt8] = []
                while body.count < 4096, case .bytes(let bytes) = try connection.readBody(timeout: timeout) {
                    body.append(contentsOf: bytes)
                }
                connection.close()
                throw HTTPSClientError.status(status, body: String(decoding: body, as: UTF8.self))
            }
            return EventStreamConnection(connection: connection, headers: responseHeaders)
        } catch {
            connection.close()
            throw error
        }
    }

    private init(connection: HTTPSConnection, headers: HTTPHeaders) {
        self.connection = connection
        self.headers = headers
    }

    /// The id of the last event received: what to resume from.
    package var lastEventID: String { parser.lastEventID }
    /// The server's reconnection delay (`retry:`), in milliseconds.
    package var reconnectionTime: Int? { parser.reconnectionTime }
    /// Comments (heartbeats) received so far.
    package var commentCount: Int { parser.commentCount }

    /// Waits up to `timeout` seconds (nil: for ever) for more of the stream. A connection that
    /// closes, even in the middle of a chunk (a relay cutting a slow subscriber off), is `.ended`:
    /// the incomplete event is dropped and the stream resumes from `lastEventID`.
    public func next(timeout: Double?) throws(HTTPSClientError) -> Next {
        let piece: HTTPSConnection.BodyPiece
        do {
            piece = try connection.readBody(timeout: timeout)
        } catch {
            if case .closed = error { return .ended }
            throw error
        }
        switch piece {
        case .bytes(let bytes):
            do {
                return .events(try parser.feed(bytes))
            } catch {
                throw .sse(error)
            }
        case .timedOut:
            return .timedOut
        case .end:
            return .ended
        }
    }

    /// Closes the connection.
    public func close() { connection.close() }
}
