import RelayHTTP
import XCTest

/// Request header rules, content-length and body limits (RFC 9113 §8.1–8.3; h2spec 8.1).
final class HTTP2RequestValidationTests: XCTestCase {
    private let get = HTTP2TestClient.requestFields()

    func testMalformedRequestsAreResetWithProtocolError() {
        let cases: [([(String, String)], UInt)] = [
            (get + [("X-Upper", "1")], #line),
            (get + [("bad name", "1")], #line),
            (get + [("bad:name", "1")], #line),
            (get + [("", "1")], #line),
            (get + [(":foo", "1")], #line),
            (get + [(":status", "200")], #line),
            (get + [(":protocol", "websocket")], #line),
            ([(":method", "GET"), (":scheme", "https"), ("accept", "*/*"), (":path", "/")], #line),
            (get + [("connection", "keep-alive")], #line),
            (get + [("keep-alive", "5")], #line),
            (get + [("proxy-connection", "keep-alive")], #line),
            (get + [("transfer-encoding", "chunked")], #line),
            (get + [("upgrade", "h2c")], #line),
            (get + [("te", "gzip")], #line),
            (get + [("x-value", " leading")], #line),
            (get + [("x-value", "trailing\t")], #line),
            (get + [("x-value", "line\nbreak")], #line),
            (get + [("x-value", "nul\u{0}")], #line),
            (get + [("content-length", "abc")], #line),
            (get + [("content-length", "1"), ("content-length", "2")], #line),
            ([(":method", "GET"), (":scheme", "https"), (":path", "")], #line),
            ([(":scheme", "https"), (":path", "/")], #line),
            ([(":method", "GET"), (":path", "/")], #line),
            ([(":method", "GET"), (":scheme", "https")], #line),
            ([(":method", "GET"), (":method", "GET"), (":scheme", "https"), (":path", "/")], #line),
            ([(":method", "GET"), (":scheme", "https"), (":scheme", "https"), (":path", "/")], #line),
            ([(":method", "GET"), (":scheme", "https"), (":path", "/"), (":path", "/")], #line),
            ([(":method", "GET"), (":scheme", "https"), (":path", "*")], #line),
            ([(":method", "GET"), (":scheme", "https"), (":path", "relative")], #line),
            ([(":method", "GET"), (":scheme", "https"), (":path", "/a b")], #line),
            ([(":method", "GET"), (":scheme", "https"), (":path", "/a\u{1b}b")], #line),
            ([(":method", "CONNECT"), (":authority", "a:443"), (":path", "/")], #line),
            ([(":method", "CONNECT"), (":scheme", "https"), (":authority", "a:443")], #line),
            ([(":method", "CONNECT")], #line),
        ]
        for (fields, line) in cases {
            var client = HTTP2TestClient.connected()
            let bytes = client.headers(1, fields)
            XCTAssertEqual(client.send(bytes), [], line: line)
            XCTAssertEqual(client.read(), ["RST_STREAM 1 PROTOCOL_ERROR"], line: line)
            let next = client.request(3)
            XCTAssertEqual(client.send(next), ["request 3 GET /"], "the connection survives", line: line)
        }
    }

    func testWellFormedEdgeCasesAreAccepted() {
        let cases: [([(String, String)], String, UInt)] = [
            (get + [("te", "trailers")], "request 1 GET /", #line),
            (get + [("content-length", "0"), ("content-length", "0")], "request 1 GET /", #line),
            (
                [(":method", "OPTIONS"), (":scheme", "https"), (":path", "*"), (":authority", "relay.test")],
                "request 1 OPTIONS *", #line
            ),
            (
                [(":method", "GET"), (":scheme", "https"), (":path", "/"), ("host", "h.test")],
                "request 1 GET / authority=h.test", #line
            ),
            (
                [(":method", "GET"), (":scheme", "http"), (":path", "/")], "request 1 GET / authority=nil scheme=http",
                #line
            ),
            ([(":method", "CONNECT"), (":authority", "relay.test")], "request 1 CONNECT  scheme=nil", #line),
            (get + [("x-empty", "")], "request 1 GET /", #line),
        ]
        for (fields, expected, line) in cases {
            var client = HTTP2TestClient.connected()
            let bytes = client.headers(1, fields)
            XCTAssertEqual(client.send(bytes), [expected], line: line)
        }
    }

    func testNULCRAndLFAreFoundAtEveryPositionOfALongValue() {
        // Values are read eight bytes at a time; each position of three words and a tail.
        let plain = Array("bearer eyJhbGciOiJFUzI1NiIsImtpZCI6".utf8)
        for position in 0..<plain.count {
            for forbidden: UInt8 in [0x00, 0x0D, 0x0A] {
                var value = plain
                value[position] = forbidden
                var client = HTTP2TestClient.connected()
                let bytes = client.headers(1, get + [("authorization", String(decoding: value, as: UTF8.self))])
                XCTAssertEqual(client.send(bytes), [], "byte \(forbidden) at \(position)")
                XCTAssertEqual(client.read(), ["RST_STREAM 1 PROTOCOL_ERROR"], "byte \(forbidden) at \(position)")
            }
        }
        // Other bytes below 0x20 (a tab) and bytes of 0x80 and more are allowed inside a value.
        for value in [
            "a\tb" + String(decoding: plain, as: UTF8.self), "ü é " + String(repeating: "\u{7f}ÿ", count: 9) + "!",
        ] {
            var client = HTTP2TestClient.connected()
            XCTAssertEqual(client.send(client.headers(1, get + [("x-value", value)])), ["request 1 GET /"], value)
        }
    }

    func testRequestCarriesHeadersAndQuery() throws {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(
            1, method: "POST", path: "/3/device/abc?x=1",
            [("apns-topic", "com.example"), ("cookie", "a=1"), ("cookie", "b=2")],
            endStream: false)
        client.send(bytes + HTTP2TestClient.data(1, "{}", endStream: true))
        guard case .request(let id, let request, let authority, let scheme)? = client.events.last else {
            return XCTFail("no request")
        }
        XCTAssertEqual(id, 1)
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.path, "/3/device/abc")
        XCTAssertEqual(request.query, "x=1")
        XCTAssertEqual(request.headers["apns-topic"], "com.example")
        XCTAssertEqual(request.headers.values("cookie"), ["a=1", "b=2"])
        XCTAssertNil(request.headers[":method"])
        XCTAssertEqual(request.body, Array("{}".utf8))
        XCTAssertEqual(authority, "relay.test")
        XCTAssertEqual(scheme, "https")
    }

    func testBodyAcrossDataFramesWithPadding() {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(1, method: "PUT", [("content-length", "6")], endStream: false)
        let padded = HTTP2TestClient.frame(1, .data(bytes: Array("abc".utf8), endStream: false, padding: 10))
        XCTAssertEqual(
            client.send(bytes + padded + HTTP2TestClient.data(1, "def", endStream: true)),
            ["request 1 PUT / body=abcdef"])
    }

    func testContentLengthMismatchIsMalformed() {
        let cases: [(String, [String], UInt)] = [
            ("5", ["abc"], #line),  // too little
            ("2", ["abc"], #line),  // too much in one frame
            ("3", ["ab", "cd"], #line),  // too much across frames
        ]
        for (length, chunks, line) in cases {
            var client = HTTP2TestClient.connected()
            var bytes = client.request(1, method: "POST", [("content-length", length)], endStream: false)
            for (index, chunk) in chunks.enumerated() {
                bytes += HTTP2TestClient.data(1, chunk, endStream: index == chunks.count - 1)
            }
            XCTAssertEqual(client.send(bytes), [], line: line)
            XCTAssertEqual(client.read(), ["RST_STREAM 1 PROTOCOL_ERROR"], line: line)
        }
        var client = HTTP2TestClient.connected()
        let bytes = client.request(1, method: "POST", [("content-length", "3")], endStream: true)
        XCTAssertEqual(client.send(bytes), [])
        XCTAssertEqual(client.read(), ["RST_STREAM 1 PROTOCOL_ERROR"], "END_STREAM on HEADERS means an empty body")
    }

    func testBodyOverTheLimitIsReportedOnceAndDiscarded() {
        var client = HTTP2TestClient.connected(HTTP2Configuration(maxRequestBodyBytes: 4))
        let bytes = client.request(1, method: "POST", path: "/big", endStream: false)
        XCTAssertEqual(client.send(bytes + HTTP2TestClient.data(1, "abc")), [])
        XCTAssertEqual(client.send(HTTP2TestClient.data(1, "de")), ["tooLarge 1 POST /big"])
        XCTAssertEqual(client.send(HTTP2TestClient.data(1, "fgh", endStream: true)), [])
        client.connection.sendResponse(streamID: 1, head: HTTPResponseHead(status: 413), body: Array("no".utf8))
        XCTAssertEqual(client.read(), ["HEADERS 1 :status=413", "DATA 1 no END_STREAM"])
        XCTAssertEqual(client.connection.openStreamCount, 0)
    }

    func testDeclaredLengthOverTheLimitIsReportedAtOnceAndResetAfterTheResponse() {
        var client = HTTP2TestClient.connected(HTTP2Configuration(maxRequestBodyBytes: 4))
        let bytes = client.request(1, method: "POST", [("content-length", "100")], endStream: false)
        XCTAssertEqual(client.send(bytes), ["tooLarge 1 POST /"])
        client.connection.sendResponse(streamID: 1, head: HTTPResponseHead(status: 413), body: [])
        XCTAssertEqual(client.read(), ["HEADERS 1 :status=413 END_STREAM", "RST_STREAM 1 NO_ERROR"])
        XCTAssertEqual(client.send(HTTP2TestClient.data(1, "late")), [], "DATA in flight is ignored")
        XCTAssertEqual(client.read(), [])
    }
}
