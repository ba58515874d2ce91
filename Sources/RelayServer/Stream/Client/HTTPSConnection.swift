package import RelayHTTP
public import RelayNet

/// An HTTP/1.1 client connection over TLS to the relay, for command-line tools, tests and the load
/// generator: whole requests with `request`, or a response read piece by piece (the event stream)
/// with `send` then `readHead` and `readBody`. Keep-alive; one request at a time; one owner.
public final class HTTPSConnection {
    /// A complete response.
    public struct Response: Sendable {
        public var status: Int
        package var headers: HTTPHeaders
        public var body: [UInt8]

        /// The body as text.
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// What `readBody` produced.
    package enum BodyPiece: Sendable, Equatable {
        case bytes([UInt8])
        case timedOut
        case end
    }

    /// The TLS connection underneath (its `fd` is for callers that `poll` many connections).
    public let client: TLSClient
    /// The `host` header value.
    package let authority: String
    private var parser = HTTP1ResponseParser()
    private var pending: [HTTP1ResponseParser.Event] = []

    /// Connects and verifies the server against `context`'s CA file.
    public static func connect(
        host: String, port: UInt16, context: TLSClientContext, timeout: Double = 10, receiveBufferBytes: Int? = nil
    ) throws(HTTPSClientError) -> HTTPSConnection {
        do {
            let client = try TLSClient.connect(
                host: host, port: port, context: context, timeout: timeout, receiveBufferBytes: receiveBufferBytes)
            return HTTPSConnection(client: client, authority: port == 443 ? host : "\(host):\(port)")
        } catch {
            throw .tls(error)
        }
    }

    private init(client: TLSClient, authority: String) {
        self.client = client
        self.authority = authority
    }

    /// Sends one request and reads the whole response.
    public func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = [], timeout: Double = 30
    ) throws(HTTPSClientError) -> Response {
        try send(method, target, headers: headers, body: body, timeout: timeout)
        let (status, responseHeaders) = try readHead(timeout: timeout)
        var collected: [UInt8] = []
        while true {
            switch try readBody(timeout: timeout) {
            case .bytes(let bytes): collected.append(contentsOf: bytes)
            case .end: return Response(status: status, headers: responseHeaders, body: collected)
            case .timedOut: throw .timedOut("\(method) \(target)")
            }
        }
    }

    /// Writes a request; `content-length` is added when there is a body.
    package func send(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = [], timeout: Double = 30
    ) throws(HTTPSClientError) {
        var head = "\(method) \(target) HTTP/1.1\r\nhost: \(authority)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" { head += "content-length: \(body.count)\r\n" }
        head += "\r\n"
        parser = HTTP1ResponseParser(isHeadRequest: method == "HEAD")
        pending = []
        do {
            try client.write(Array(head.utf8) + body, timeout: timeout)
        } catch {
            throw .tls(error)
        }
    }

    /// Waits for the response's status and headers.
    package func readHead(timeout: Double?) throws(HTTPSClientError) -> (status: Int, headers: HTTPHeaders) {
        while true {
            if let index = pending.firstIndex(where: { if case .head = $0 { true } else { false } }) {
                guard case .head(let status, let headers) = pending.remove(at: index) else { continue }
                return (status, headers)
            }
            guard try fill(timeout: timeout) else { throw .timedOut("response head") }
        }
    }

    /// The next piece of the body, `.timedOut` when nothing came within `timeout` (nil: wait for
    /// ever), `.end` once the body is complete.
    package func readBody(timeout: Double?) throws(HTTPSClientError) -> BodyPiece {
        while true {
            if !pending.isEmpty {
                switch pending.removeFirst() {
                case .body(let bytes): return .bytes(bytes)
                case .end: return .end
                case .head: continue
                }
            }
            guard try fill(timeout: timeout) else { return .timedOut }
        }
    }

    /// Closes the connection (close_notify first).
    public func close() { client.close() }

    /// Reads once from the socket into `pending`; false on timeout.
    private func fill(timeout: Double?) throws(HTTPSClientError) -> Bool {
        let result: TLSClient.ReadResult
        do {
            result = try client.read(timeout: timeout)
        } catch {
            throw .tls(error)
        }
        switch result {
        case .timedOut:
            return false
        case .bytes(let bytes):
            do {
                pending.append(contentsOf: try parser.feed(bytes))
            } catch {
                throw .http(error)
            }
        case .closed:
            guard !parser.isComplete else { throw .closed }
            do {
                pending.append(contentsOf: try parser.finish())
            } catch {
                throw error.reason == .truncated ? .closed : .http(error)
            }
        }
        return true
    }
}
