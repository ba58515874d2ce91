import RelayHTTP
import XCTest

final class HTTP1RequestParserErrorTests: XCTestCase {
    private typealias Reason = HTTP1ParseError.Reason

    func testInvalidRequestsAreAnsweredWithTheRightStatus() {
        let limits = HTTP1RequestParser.Limits(maxHeaderBytes: 256, maxHeaderFields: 4, maxBodyBytes: 64)
        let cases: [(input: String, status: Int, reason: Reason, why: String)] = [
            ("GET /\r\n\r\n", 400, .malformedRequestLine, "no version (HTTP/0.9 style)"),
            ("GET  / HTTP/1.1\r\nHost: h\r\n\r\n", 400, .malformedRequestLine, "double space"),
            ("GET / HTTP/1.1 \r\nHost: h\r\n\r\n", 400, .malformedRequestLine, "trailing space"),
            ("G(T / HTTP/1.1\r\nHost: h\r\n\r\n", 400, .malformedRequestLine, "method not a token"),
            ("GET / HTTP/1.1\rX\r\nHost: h\r\n\r\n", 400, .bareCR, "bare CR in the request line"),
            ("GET / http/1.1\r\nHost: h\r\n\r\n", 400, .malformedRequestLine, "lowercase protocol name"),
            ("GET / HTTP/1.10\r\nHost: h\r\n\r\n", 400, .malformedRequestLine, "two-digit minor"),
            ("GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505, .unsupportedVersion, "HTTP/2 over HTTP/1 framing"),
            ("GET / HTTP/0.9\r\nHost: h\r\n\r\n", 505, .unsupportedVersion, "HTTP/0.9"),
            ("GET a/b HTTP/1.1\r\nHost: h\r\n\r\n", 400, .invalidTarget, "relative target"),
            ("GET * HTTP/1.1\r\nHost: h\r\n\r\n", 400, .invalidTarget, "asterisk without OPTIONS"),
            ("GET http:///x HTTP/1.1\r\nHost: h\r\n\r\n", 400, .invalidTarget, "absolute form, empty authority"),
            ("CONNECT relay:443 HTTP/1.1\r\nHost: h\r\n\r\n", 400, .invalidTarget, "authority form"),
            ("GET / HTTP/1.1\r\n\r\n", 400, .invalidHost, "HTTP/1.1 without Host"),
            ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, .invalidHost, "two Hosts"),
            ("GET / HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n folded\r\n\r\n", 400, .obsoleteLineFolding, "obs-fold"),
            ("GET / HTTP/1.1\r\n Host: h\r\n\r\n", 400, .obsoleteLineFolding, "whitespace before the first field"),
            ("GET / HTTP/1.1\r\nHost : h\r\n\r\n", 400, .malformedField, "space before the colon"),
            ("GET / HTTP/1.1\r\nHost h\r\n\r\n", 400, .malformedField, "no colon"),
            ("GET / HTTP/1.1\r\n: h\r\n\r\n", 400, .malformedField, "empty name"),
            ("GET / HTTP/1.1\r\nHost: h\r\nX-A: a\rb\r\n\r\n", 400, .invalidFieldValue, "bare CR in a value"),
            ("GET / HTTP/1.1\r\nHost: h\r\nX-A: a\u{0}b\r\n\r\n", 400, .invalidFieldValue, "NUL in a value"),
            ("GET / HTTP/1.1\r\nHost: h\r\nX-A: a\u{7f}\r\n\r\n", 400, .invalidFieldValue, "DEL in a value"),
            (
                "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400,
                .contentLengthWithTransferEncoding, "CL and TE"
            ),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", 400, .invalidContentLength, "negative CL"),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +1\r\n\r\n", 400, .invalidContentLength, "signed CL"),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0x10\r\n\r\n", 400, .invalidContentLength, "hex CL"),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length:\r\n\r\n", 400, .invalidContentLength, "empty CL"),
            (
                "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1, 2\r\n\r\n", 400, .invalidContentLength,
                "CL list disagrees"
            ),
            (
                "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400,
                .invalidContentLength, "CL fields disagree"
            ),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 65\r\n\r\n", 413, .bodyTooLarge, "CL over the limit"),
            (
                "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999999\r\n\r\n", 413, .bodyTooLarge,
                "CL beyond Int"
            ),
            (
                "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501,
                .unsupportedTransferEncoding, "gzip"
            ),
            (
                "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", 501, .unsupportedTransferEncoding,
                "chunked not final"
            ),
            (
                "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", 400,
                .invalidTransferEncoding, "chunked twice"
            ),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding:\r\n\r\n", 400, .invalidTransferEncoding, "empty TE"),
            ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400, .invalidTransferEncoding, "TE in HTTP/1.0"),
            (chunked("zz\r\n"), 400, .malformedChunk, "size not hex"),
            (chunked(";x\r\n"), 400, .malformedChunk, "size missing"),
            (chunked("2x\r\nab\r\n"), 400, .malformedChunk, "junk after the size"),
            (chunked("2\nab\r\n0\r\n\r\n"), 400, .malformedChunk, "bare LF after the size"),
            (chunked("2\r\nabc\r\n"), 400, .malformedChunk, "data longer than the size"),
            (chunked("2\r\nab\n0\r\n\r\n"), 400, .malformedChunk, "bare LF after the data"),
            (chunked("41\r\n"), 413, .bodyTooLarge, "chunk over the body limit"),
            (
                chunked("20\r\n" + String(repeating: "a", count: 32) + "\r\n21\r\n"), 413, .bodyTooLarge,
                "chunks add up over the limit"
            ),
            (chunked("ffffffffffffffffffffffff\r\n"), 413, .bodyTooLarge, "size beyond Int"),
            (
                chunked("0\r\n" + String(repeating: "X-T: 1\r\n", count: 40)), 431, .headerSectionTooLarge,
                "trailers over the limit"
            ),
            (
                "GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", 431, .headerSectionTooLarge,
                "too many fields"
            ),
            (
                "GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "v", count: 300), 431, .headerSectionTooLarge,
                "header bytes over the limit, unterminated"
            ),
            (
                "GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "v", count: 300) + "\r\n\r\n", 431,
                .headerSectionTooLarge, "header bytes over the limit, complete"
            ),
            ("GET /" + String(repeating: "p", count: 300), 414, .targetTooLong, "request line over the limit"),
            (String(repeating: "\r\n", count: 200), 414, .targetTooLong, "endless empty lines"),
        ]
        for item in cases {
            var parser = HTTP1RequestParser(limits: limits)
            parser.feed(bytes(item.input))
            let error = drain(&parser).error
            XCTAssertEqual(error?.status, item.status, item.why)
            XCTAssertEqual(
                error?.reason, item.reason, "\(item.why): \(error.map(String.init(describing:)) ?? "no error")")
        }
    }

    private func chunked(_ body: String) -> String {
        "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" + body
    }

    func testErrorsAreStickyAndCarryTheOffendingValue() {
        var parser = HTTP1RequestParser()
        parser.feed(bytes("GET / HTTP/1.1\r\nHost: h\r\nBad Name: x\r\n\r\n"))
        let error = drain(&parser).error
        XCTAssertEqual(error, HTTP1ParseError(status: 400, .malformedField, value: "Bad Name: x"))
        parser.feed(bytes("GET / HTTP/1.1\r\nHost: h\r\n\r\n"))
        XCTAssertEqual(drain(&parser).error, error)
        XCTAssertEqual(String(describing: error!), "400: malformed header field (Bad Name: x)")
    }

    func testRequestsBeforeAnErrorAreStillDelivered() {
        var parser = HTTP1RequestParser()
        parser.feed(bytes("GET /ok HTTP/1.1\r\nHost: h\r\n\r\nGET /bad HTTP/3.0\r\nHost: h\r\n\r\n"))
        let (requests, error) = drain(&parser)
        XCTAssertEqual(requests.map(\.0.path), ["/ok"])
        XCTAssertEqual(error?.status, 505)
    }
}
