import RelayHTTP
import XCTest

/// The client half of a conversation with `HTTP2ServerConnection`: builds client frames (header
/// blocks with a real HPACK encoder), feeds them in, and reads the server's output back as frames
/// summarised in one line each, so tests compare short strings.
struct HTTP2TestClient {
    var connection: HTTP2ServerConnection
    private var encoder = HPACKEncoder()
    private var decoder = HPACKDecoder(maxHeaderListSize: 1 << 20)
    private var frameDecoder = HTTP2FrameDecoder(maxFrameSize: HTTP2PeerSettings.maxMaxFrameSize)
    /// Every event the connection returned, in order.
    private(set) var events: [HTTP2ConnectionEvent] = []
    /// Header lists of HEADERS blocks the server sent, by stream.
    private(set) var responseHeaders: [UInt32: [(name: String, value: String)]] = [:]
    private var pendingBlock: (streamID: UInt32, bytes: [UInt8])?

    init(_ configuration: HTTP2Configuration = HTTP2Configuration()) {
        connection = HTTP2ServerConnection(configuration: configuration)
    }

    /// A connection past the handshake: preface and SETTINGS sent, the server's SETTINGS
    /// acknowledged, and all server output read.
    static func connected(
        _ configuration: HTTP2Configuration = HTTP2Configuration(), settings: [HTTP2Setting] = []
    ) -> HTTP2TestClient {
        var client = HTTP2TestClient(configuration)
        client.send(
            HTTP2ServerConnection.clientPreface + Self.frame(0, .settings(settings)) + Self.frame(0, .settingsAck))
        _ = client.read()
        return client
    }

    // MARK: Sending

    /// Feeds raw bytes; returns the one-line summaries of the events they produced.
    @discardableResult
    mutating func send(_ bytes: [UInt8]) -> [String] {
        let new = connection.receive(bytes)
        events += new
        return new.map(Self.describe)
    }

    /// Encodes one frame.
    static func frame(_ streamID: UInt32, _ payload: HTTP2Frame.Payload) -> [UInt8] {
        HTTP2Frame(streamID: streamID, payload: payload).encoded
    }

    /// A header block for `fields`, from this client's HPACK encoder.
    mutating func block(_ fields: [(String, String)]) -> [UInt8] {
        var bytes: [UInt8] = []
        encoder.encode(fields.map { (name: $0.0, value: $0.1) }, into: &bytes)
        return bytes
    }

    /// The pseudo-headers of a valid request, followed by `extra` regular fields.
    static func requestFields(
        method: String = "GET", path: String = "/", authority: String = "relay.test", _ extra: [(String, String)] = []
    ) -> [(String, String)] {
        [(":method", method), (":scheme", "https"), (":path", path), (":authority", authority)] + extra
    }

    /// A HEADERS frame carrying `fields` in one block.
    mutating func headers(
        _ streamID: UInt32, _ fields: [(String, String)], endStream: Bool = true, priority: HTTP2Priority? = nil
    ) -> [UInt8] {
        Self.frame(
            streamID, .headers(fragment: block(fields), endStream: endStream, endHeaders: true, priority: priority))
    }

    /// A HEADERS frame for a valid GET (or `method`) request.
    mutating func request(
        _ streamID: UInt32, method: String = "GET", path: String = "/", _ extra: [(String, String)] = [],
        endStream: Bool = true
    ) -> [UInt8] {
        headers(streamID, Self.requestFields(method: method, path: path, extra), endStream: endStream)
    }

    /// A DATA frame.
    static func data(_ streamID: UInt32, _ text: String, endStream: Bool = false) -> [UInt8] {
        frame(streamID, .data(bytes: Array(text.utf8), endStream: endStream))
    }

    // MARK: Reading

    /// Takes all of the server's output and summarises each frame, e.g. `HEADERS 1 :status=200 END_STREAM`.
    mutating func read() -> [String] {
        var output: [UInt8] = []
        while let chunk = connection.nextOutput() { output += chunk }
        frameDecoder.append(output)
        var lines: [String] = []
        while true {
            let frame: HTTP2Frame
            do {
                guard let next = try frameDecoder.nextFrame() else { break }
                frame = next
            } catch {
                XCTFail("server sent a bad frame: \(error)")
                break
            }
            lines.append(describe(frame))
        }
        return lines
    }

    /// The last events' summaries, cleared.
    mutating func takeEvents() -> [String] {
        defer { events = [] }
        return events.map(Self.describe)
    }

    private mutating func describe(_ frame: HTTP2Frame) -> String {
        let id = frame.streamID
        switch frame.payload {
        case .data(let bytes, let endStream, _):
            let text = bytes.count > 32 ? "<\(bytes.count) bytes>" : String(decoding: bytes, as: UTF8.self)
            return "DATA \(id) \(text)" + (endStream ? " END_STREAM" : "")
        case .headers(let fragment, let endStream, let endHeaders, _, _):
            pendingBlock = (id, fragment)
            let fields = endHeaders ? finishBlock() : "..."
            return "HEADERS \(id) \(fields)" + (endStream ? " END_STREAM" : "")
        case .continuation(let fragment, let endHeaders):
            pendingBlock?.bytes += fragment
            return "CONTINUATION \(id) " + (endHeaders ? finishBlock() : "...")
        case .priority: return "PRIORITY \(id)"
        case .rstStream(let code): return "RST_STREAM \(id) \(code)"
        case .settings(let settings):
            return "SETTINGS " + settings.map { "\($0.identifier.rawValue)=\($0.value)" }.joined(separator: ",")
        case .settingsAck: return "SETTINGS ACK"
        case .pushPromise: return "PUSH_PROMISE \(id)"
        case .ping(let opaque, let ack): return "PING \(opaque)" + (ack ? " ACK" : "")
        case .goaway(let last, let code, let debug):
            return "GOAWAY \(last) \(code) \(String(decoding: debug, as: UTF8.self))"
        case .windowUpdate(let increment): return "WINDOW_UPDATE \(id) \(increment)"
        case .unknown(let type, _, _): return "UNKNOWN \(type)"
        }
    }

    private mutating func finishBlock() -> String {
        guard let pending = pendingBlock else { return "?" }
        pendingBlock = nil
        do {
            let fields = try decoder.decode(pending.bytes)
            responseHeaders[pending.streamID] = fields
            return fields.map { "\($0.name)=\($0.value)" }.joined(separator: " ")
        } catch {
            XCTFail("server sent a bad header block: \(error)")
            return "?"
        }
    }

    /// One line per event, e.g. `request 1 GET /a?b body=xyz`.
    static func describe(_ event: HTTP2ConnectionEvent) -> String {
        switch event {
        case .request(let id, let request, let authority, let scheme):
            let target = request.query.isEmpty ? request.path : request.path + "?" + request.query
            var line = "request \(id) \(request.method) \(target)"
            if authority != "relay.test" { line += " authority=\(authority ?? "nil")" }
            if scheme != "https" { line += " scheme=\(scheme ?? "nil")" }
            if !request.body.isEmpty { line += " body=\(String(decoding: request.body, as: UTF8.self))" }
            return line
        case .requestTooLarge(let id, let request, _, _):
            return "tooLarge \(id) \(request.method) \(request.path)"
        case .streamReset(let id, let code):
            return "reset \(id) \(code)"
        case .goawayReceived(let last, let code, let debug):
            return "goaway \(last) \(code) \(String(decoding: debug, as: UTF8.self))"
        case .connectionError(let code, let reason):
            return "error \(code) \(reason)"
        }
    }
}
