import RelayHTTP
import XCTest

final class HTTP1ResponseWriterTests: XCTestCase {
    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    func testWholeResponse() {
        let response = HTTPResponse(
            status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]), body: bytes("{}"))
        XCTAssertEqual(
            text(HTTP1ResponseWriter.response(response, keepAlive: true)),
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}")
        XCTAssertEqual(
            text(HTTP1ResponseWriter.response(response, keepAlive: false)),
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}")
        XCTAssertEqual(
            text(HTTP1ResponseWriter.response(response, keepAlive: true, isHeadRequest: true)),
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n")
    }

    func testHeadFramings() {
        let head = HTTPResponseHead(status: 200, headers: HTTPHeaders([("content-type", "text/event-stream")]))
        XCTAssertEqual(
            text(HTTP1ResponseWriter.head(head, framing: .chunked, keepAlive: true)),
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
        XCTAssertEqual(
            text(HTTP1ResponseWriter.head(head, framing: .untilClose, keepAlive: true, requestMinorVersion: 0)),
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n")
        XCTAssertEqual(
            text(HTTP1ResponseWriter.head(head, framing: .contentLength(0), keepAlive: true, requestMinorVersion: 0)),
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: 0\r\nconnection: keep-alive\r\n\r\n")
    }

    func testBodilessStatusesGetNoFraming() {
        for status in [101, 204, 304] {
            XCTAssertEqual(
                text(
                    HTTP1ResponseWriter.head(
                        HTTPResponseHead(status: status), framing: .contentLength(5), keepAlive: true)),
                "HTTP/1.1 \(status) \(HTTPResponseHead.reasonPhrase(status))\r\n\r\n")
        }
        let noContent = HTTPResponse(status: 204, body: bytes("ignored"))
        XCTAssertEqual(
            text(HTTP1ResponseWriter.response(noContent, keepAlive: true)), "HTTP/1.1 204 No Content\r\n\r\n")
        XCTAssertEqual(text(HTTP1ResponseWriter.continueResponse), "HTTP/1.1 100 Continue\r\n\r\n")
    }

    func testCallerFramingFieldsAreReplaced() {
        let head = HTTPResponseHead(
            status: 200,
            headers: HTTPHeaders([("Content-Length", "999"), ("Transfer-Encoding", "gzip"), ("Connection", "upgrade")]))
        XCTAssertEqual(
            text(HTTP1ResponseWriter.head(head, framing: .contentLength(3), keepAlive: true)),
            "HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\n")
    }

    func testValuesCannotSplitTheResponse() {
        let head = HTTPResponseHead(
            status: 400,
            headers: HTTPHeaders([
                ("x-echo", "a\r\nSet-Cookie: evil\u{0}"), ("bad name", "dropped"), ("x-ok", "caf\u{e9}"),
            ]))
        XCTAssertEqual(
            HTTP1ResponseWriter.head(head, framing: .contentLength(0), keepAlive: true),
            bytes("HTTP/1.1 400 Bad Request\r\nx-echo: a  Set-Cookie: evil \r\nx-ok: caf") + [0xC3, 0xA9]
                + bytes("\r\ncontent-length: 0\r\n\r\n"))
    }

    func testChunks() {
        XCTAssertEqual(text(HTTP1ResponseWriter.chunk(bytes("hello"))), "5\r\nhello\r\n")
        XCTAssertEqual(HTTP1ResponseWriter.chunk([]), [], "an empty chunk would end the body")
        let large = [UInt8](repeating: 0x41, count: 0x1A2B)
        XCTAssertEqual(Array(HTTP1ResponseWriter.chunk(large).prefix(6)), bytes("1a2b\r\n"))
        var out = bytes("x")
        HTTP1ResponseWriter.appendChunk(bytes("0123456789abcdef"), to: &out)
        XCTAssertEqual(text(out), "x10\r\n0123456789abcdef\r\n")
        XCTAssertEqual(text(HTTP1ResponseWriter.lastChunk), "0\r\n\r\n")
    }

    func testChunkedOutputParsesBack() {
        // Our request parser reads chunked framing too: wrap the chunks in a request head.
        var message = bytes("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n")
        for piece in ["a", String(repeating: "b", count: 300), "c"] {
            HTTP1ResponseWriter.appendChunk(bytes(piece), to: &message)
        }
        message += HTTP1ResponseWriter.lastChunk
        var parser = HTTP1RequestParser()
        parser.feed(message)
        XCTAssertEqual(drain(&parser).requests.first?.0.body, bytes("a" + String(repeating: "b", count: 300) + "c"))
    }
}
