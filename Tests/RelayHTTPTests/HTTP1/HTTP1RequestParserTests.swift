import RelayHTTP
import RelayTestKit
import XCTest

/// Drains the parser: every complete request, then the final `.needMore` or error.
func drain(_ parser: inout HTTP1RequestParser) -> (requests: [(HTTPRequest, HTTP1RequestInfo)], error: HTTP1ParseError?)
{
    var requests: [(HTTPRequest, HTTP1RequestInfo)] = []
    while true {
        switch parser.next() {
        case .request(let request, let info): requests.append((request, info))
        case .needMore: return (requests, nil)
        case .error(let error): return (requests, error)
        }
    }
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

final class HTTP1RequestParserTests: XCTestCase {
    func testSimpleGet() throws {
        var parser = HTTP1RequestParser()
        parser.feed(bytes("GET /v1/activities?limit=5 HTTP/1.1\r\nHost: relay\r\nAccept: */*\r\n\r\n"))
        let (requests, error) = drain(&parser)
        XCTAssertNil(error)
        let (request, info) = try XCTUnwrap(requests.first)
        XCTAssertEqual(request.method, "GET")
        XCTAssertEqual(request.path, "/v1/activities")
        XCTAssertEqual(request.query, "limit=5")
        XCTAssertEqual(
            request.headers.fields, [HTTPField(name: "host", value: "relay"), HTTPField(name: "accept", value: "*/*")])
        XCTAssertEqual(request.body, [])
        XCTAssertEqual(info, HTTP1RequestInfo(minorVersion: 1, keepAlive: true))
        XCTAssertEqual(parser.progress, .idle)
        XCTAssertEqual(parser.bufferedByteCount, 0)
    }

    func testContentLengthBodyByteByByte() throws {
        let message = bytes("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello")
        var parser = HTTP1RequestParser()
        var progress: [HTTP1RequestParser.Progress] = []
        var requests: [HTTPRequest] = []
        for byte in message {
            parser.feed([byte])
            let (done, error) = drain(&parser)
            XCTAssertNil(error)
            requests += done.map(\.0)
            progress.append(parser.progress)
        }
        XCTAssertEqual(requests.map(\.body), [bytes("hello")])
        // Inside the head until the empty line, inside the body until the last octet, then idle.
        let headLength = message.count - 5
        XCTAssertEqual(progress[..<(headLength - 1)].filter { $0 != .head }.count, 0)
        XCTAssertEqual(progress[headLength - 1], .body(expectsContinue: false))
        XCTAssertEqual(progress.last, .idle)
    }

    func testPipelinedRequestsInOneFeed() {
        var parser = HTTP1RequestParser()
        parser.feed(
            bytes(
                "GET /a HTTP/1.1\r\nHost: h\r\n\r\n"
                    + "POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"
                    + "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nxy\r\n0\r\n\r\n"
                    + "GET /d HTTP/1.1\r\nHo"))
        let (requests, error) = drain(&parser)
        XCTAssertNil(error)
        XCTAssertEqual(requests.map(\.0.path), ["/a", "/b", "/c"])
        XCTAssertEqual(requests.map(\.0.body), [[], bytes("abc"), bytes("xy")])
        XCTAssertEqual(parser.progress, .head)
        parser.feed(bytes("st: h\r\n\r\n"))
        XCTAssertEqual(drain(&parser).requests.map(\.0.path), ["/d"])
    }

    func testChunkedBodyWithExtensionsAndTrailers() {
        var parser = HTTP1RequestParser()
        parser.feed(
            bytes(
                "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n"
                    + "4;name=value\r\nWiki\r\n"  // extension ignored
                    + "5 ; a=\"b\"\r\npedia\r\n"  // BWS before the extension
                    + "E\r\n in\r\n\r\nchunks.\r\n"  // upper-case hex, CRLF inside data
                    + "0\r\n"
                    + "Expires: never\r\nX-Trailer: 1\r\n"  // trailers, dropped
                    + "\r\n"))
        let (requests, error) = drain(&parser)
        XCTAssertNil(error)
        XCTAssertEqual(requests.first?.0.body, bytes("Wikipedia in\r\n\r\nchunks."))
        XCTAssertEqual(requests.first?.0.headers["expires"], nil)
    }

    func testKeepAliveSemantics() {
        let cases: [(head: String, keepAlive: Bool, minor: Int)] = [
            ("GET / HTTP/1.1\r\nHost: h\r\n\r\n", true, 1),
            ("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", false, 1),
            ("GET / HTTP/1.1\r\nHost: h\r\nConnection: Upgrade, CLOSE\r\n\r\n", false, 1),
            ("GET / HTTP/1.0\r\n\r\n", false, 0),
            ("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true, 0),
            ("GET / HTTP/1.0\r\nConnection: Keep-Alive, foo\r\n\r\n", true, 0),
            ("GET / HTTP/1.9\r\nHost: h\r\n\r\n", true, 1),
        ]
        for item in cases {
            var parser = HTTP1RequestParser()
            parser.feed(bytes(item.head))
            let info = drain(&parser).requests.first?.1
            XCTAssertEqual(info?.keepAlive, item.keepAlive, item.head)
            XCTAssertEqual(info?.minorVersion, item.minor, item.head)
        }
    }

    func testExpectContinueIsReportedWhileTheBodyIsPending() {
        var parser = HTTP1RequestParser()
        parser.feed(bytes("PUT /x HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\nContent-Length: 2\r\n\r\n"))
        XCTAssertTrue(drain(&parser).requests.isEmpty)
        XCTAssertEqual(parser.progress, .body(expectsContinue: true))
        parser.feed(bytes("ok"))
        XCTAssertEqual(drain(&parser).requests.first?.1.expectsContinue, true)
    }

    func testTargetForms() {
        let cases: [(line: String, path: String, query: String)] = [
            ("GET /a/b?x=1&y HTTP/1.1", "/a/b", "x=1&y"),
            ("GET http://relay.example:8443/v1/x?q=2 HTTP/1.1", "/v1/x", "q=2"),
            ("GET HTTPS://relay.example HTTP/1.1", "/", ""),
            ("GET http://relay.example?q HTTP/1.1", "/", "q"),
            ("OPTIONS * HTTP/1.1", "*", ""),
        ]
        for item in cases {
            var parser = HTTP1RequestParser()
            parser.feed(bytes(item.line + "\r\nHost: h\r\n\r\n"))
            let request = drain(&parser).requests.first?.0
            XCTAssertEqual(request?.path, item.path, item.line)
            XCTAssertEqual(request?.query, item.query, item.line)
        }
    }

    func testBareLFEndsLinesAndLeadingEmptyLinesAreSkipped() {
        var parser = HTTP1RequestParser()
        parser.feed(
            bytes("\r\n\nGET /lf HTTP/1.1\nHost: h\nX-A:  padded value \t\n\nGET /next HTTP/1.1\r\nHost: h\r\n\r\n"))
        let (requests, error) = drain(&parser)
        XCTAssertNil(error)
        XCTAssertEqual(requests.map(\.0.path), ["/lf", "/next"])
        XCTAssertEqual(requests.first?.0.headers["x-a"], "padded value")
    }

    func testRepeatedEqualContentLengthsAreAccepted() {
        var parser = HTTP1RequestParser()
        parser.feed(bytes("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2, 2\r\nContent-Length: 2\r\n\r\nab"))
        XCTAssertEqual(drain(&parser).requests.first?.0.body, bytes("ab"))
    }

    func testEmptyValuesAndObsTextAreKept() {
        var parser = HTTP1RequestParser()
        parser.feed(
            [UInt8]("GET / HTTP/1.1\r\nHost: h\r\nX-Empty:\r\nX-Latin: caf".utf8) + [0xC3, 0xA9] + bytes("\r\n\r\n"))
        let headers = drain(&parser).requests.first?.0.headers
        XCTAssertEqual(headers?["x-empty"], "")
        XCTAssertEqual(headers?["x-latin"], "caf\u{e9}")
    }

    func testLimitsAreInclusive() {
        let head = "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\n"
        var parser = HTTP1RequestParser(limits: .init(maxHeaderBytes: head.utf8.count, maxBodyBytes: 4))
        parser.feed(bytes(head + "abcd"))
        XCTAssertEqual(drain(&parser).requests.first?.0.body, bytes("abcd"))
        var over = HTTP1RequestParser(limits: .init(maxHeaderBytes: head.utf8.count - 1, maxBodyBytes: 4))
        over.feed(bytes(head + "abcd"))
        XCTAssertEqual(drain(&over).error?.status, 431, "one octet over")
    }

    func testBufferIsReleasedOnceConsumed() {
        var parser = HTTP1RequestParser()
        for _ in 0..<100 {
            parser.feed(
                bytes("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1000\r\n\r\n")
                    + [UInt8](repeating: 0x61, count: 1000))
            XCTAssertEqual(drain(&parser).requests.count, 1)
            XCTAssertEqual(parser.bufferedByteCount, 0)
        }
    }

    func testAnySplitOfAPipelinedStreamGivesTheSameRequests() {
        let stream = bytes(
            "\r\nPOST /a?x=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nhello world"
                + "PUT /b HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3;e=1\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nT: x\r\n\r\n"
                + "GET /c HTTP/1.0\nConnection: keep-alive\n\n")
        var whole = HTTP1RequestParser()
        whole.feed(stream)
        let expected = drain(&whole).requests
        XCTAssertEqual(expected.map(\.0.path), ["/a", "/b", "/c"])
        var generator = SplitMix64(seed: 9112)
        for _ in 0..<200 {
            var parser = HTTP1RequestParser()
            var requests: [(HTTPRequest, HTTP1RequestInfo)] = []
            var offset = 0
            while offset < stream.count {
                let size = Int.random(in: 1...17, using: &generator)
                parser.feed(Array(stream[offset..<min(stream.count, offset + size)]))
                offset += size
                let (done, error) = drain(&parser)
                XCTAssertNil(error)
                requests += done
            }
            XCTAssertEqual(requests.map(\.0.path), expected.map(\.0.path))
            XCTAssertEqual(requests.map(\.0.body), expected.map(\.0.body))
            XCTAssertEqual(requests.map(\.1), expected.map(\.1))
        }
    }
}
