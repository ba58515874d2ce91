/// Serializes HTTP/1.1 responses: status line and fields, whole responses, and chunked body pieces.
///
/// The writer owns framing: it drops any `content-length`, `transfer-encoding` and `connection` fields the
/// caller set and writes its own from `framing` and `keepAlive`. Responses that cannot have a body (1xx,
/// 204, 304) get no framing field. Field values are written defensively: CR, LF and other control octets
/// (which would split the response) become spaces, and fields whose name is not a token are dropped.
package enum HTTP1ResponseWriter {
    /// How the body that follows a head is delimited.
    package enum Framing: Sendable, Equatable {
        /// `content-length: n`.
        case contentLength(Int)
        /// `transfer-encoding: chunked`; follow with `chunk(_:)` pieces and `lastChunk`.
        case chunked
        /// No length: the body ends when the connection closes (for HTTP/1.0 clients of a stream). Implies
        /// `connection: close`.
        case untilClose
    }

    /// The interim answer to `Expect: 100-continue` (see `HTTP1RequestParser.Progress.body`).
    package static let continueResponse: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// The terminating zero-length chunk, with no trailers.
    package static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)

    /// The status line and header section, ending with the empty line.
    /// - Parameters:
    ///   - keepAlive: false adds `connection: close`.
    ///   - requestMinorVersion: for an HTTP/1.0 client kept alive, `connection: keep-alive` is added, as
    ///     HTTP/1.0 closes by default.
    package static func head(
        _ head: HTTPResponseHead, framing: Framing, keepAlive: Bool, requestMinorVersion: Int = 1
    ) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128 + head.headers.count * 40)
        appendHead(head, framing: framing, keepAlive: keepAlive, requestMinorVersion: requestMinorVersion, to: &out)
        return out
    }

    /// A whole response with `content-length` framing. With `isHeadRequest` the body is left out (the
    /// length still describes it, RFC 9110 §9.3.2).
    package static func response(
        _ response: HTTPResponse, keepAlive: Bool, requestMinorVersion: Int = 1, isHeadRequest: Bool = false
    ) -> [UInt8] {
        var out: [UInt8] = []
        let sendsBody = !isHeadRequest && Self.allowsBody(response.status)
        out.reserveCapacity(128 + response.headers.count * 40 + (sendsBody ? response.body.count : 0))
        appendHead(
            response.head, framing: .contentLength(response.body.count), keepAlive: keepAlive,
            requestMinorVersion: requestMinorVersion, to: &out)
        if sendsBody { out.append(contentsOf: response.body) }
        return out
    }

    /// One chunk of a chunked body: hex size, CRLF, data, CRLF. Empty data yields nothing, since an empty
    /// chunk would end the body (use `lastChunk` for that).
    package static func chunk(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        appendChunk(data, to: &out)
        return out
    }

    /// Appends one chunk of a chunked body to `out` (nothing for empty data).
    package static func appendChunk(_ data: [UInt8], to out: inout [UInt8]) {
        guard !data.isEmpty else { return }
        out.reserveCapacity(out.count + data.count + 12)
        appendHex(data.count, to: &out)
        out.append(contentsOf: crlf)
        out.append(contentsOf: data)
        out.append(contentsOf: crlf)
    }

    /// Whether a response with this status may carry a body (not 1xx, 204 or 304).
    package static func allowsBody(_ status: Int) -> Bool {
        !(100...199).contains(status) && status != 204 && status != 304
    }

    // MARK: - Private

    private static let crlf: [UInt8] = [0x0D, 0x0A]
    private static let framingFields: Set<String> = ["content-length", "transfer-encoding", "connection"]

    private static func appendHead(
        _ head: HTTPResponseHead, framing: Framing, keepAlive: Bool, requestMinorVersion: Int,
        to out: inout [UInt8]
    ) {
        out.append(contentsOf: "HTTP/1.1 \(head.status) \(HTTPResponseHead.reasonPhrase(head.status))".utf8)
        out.append(contentsOf: crlf)
        for field in head.headers where !framingFields.contains(field.name) {
            guard HTTP1Syntax.isToken(ArraySlice(field.name.utf8)) else { continue }
            appendField(field.name, field.value, to: &out)
        }
        if allowsBody(head.status) {
            switch framing {
            case .contentLength(let length): appendField("content-length", String(length), to: &out)
            case .chunked: appendField("transfer-encoding", "chunked", to: &out)
            case .untilClose: break
            }
        }
        if !keepAlive || framing == .untilClose {
            appendField("connection", "close", to: &out)
        } else if requestMinorVersion == 0 {
            appendField("connection", "keep-alive", to: &out)
        }
        out.append(contentsOf: crlf)
    }

    private static func appendField(_ name: String, _ value: String, to out: inout [UInt8]) {
        out.append(contentsOf: name.utf8)
        out.append(HTTP1Syntax.colon)
        out.append(HTTP1Syntax.space)
        for octet in value.utf8 {
            out.append(HTTP1Syntax.isFieldValueOctet[Int(octet)] ? octet : HTTP1Syntax.space)
        }
        out.append(contentsOf: crlf)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Lowercase hex without leading zeros; `value` is positive.
    private static func appendHex(_ value: Int, to out: inout [UInt8]) {
        var shift = (Int.bitWidth - value.leadingZeroBitCount + 3) / 4 * 4 - 4
        while shift >= 0 {
            out.append(hexDigits[(value >> shift) & 0xF])
            shift -= 4
        }
    }
}
