import RelayHTTP
import XCTest

/// The client-side HTTP/1.1 response parser: framings, byte-at-a-time feeding, limits and errors.
final class HTTP1ResponseParserTests: XCTestCase {
    private typealias Event = HTTP1ResponseParser.Event

    /// Feeds `text` in pieces of `step` bytes and collects the events.
    private func parse(_ text: String, step: Int = Int.max, finish: Bool = false) throws -> [Event] {
        var parser = HTTP1ResponseParser()
        let bytes = Array(text.utf8)
        var events: [Event] = []
        var index = 0
        while index < bytes.count {
            let end = min(bytes.count, index + step)
            events += try parser.feed(Array(bytes[index..<end]))
            index = end
        }
        if finish { events += try parser.finish() }
        return events
    }

    /// The body pieces joined, and whether the end was seen.
    private func body(_ events: [Event]) -> (String, Bool) {
        var bytes: [UInt8] = []
        var ended = false
        for event in events {
            if case .body(let piece) = event { bytes += piece }
            if case .end = event { ended = true }
        }
        return (String(decoding: bytes, as: UTF8.self), ended)
    }

    func testFramingsWholeAndByteByByte() throws {
        let cases: [(String, String, Bool)] = [
            ("HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello", "hello", false),
            (
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\ntrailer: x\r\n\r\n",
                "hello world", false
            ),
            ("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\ndata: 1\n\n", "data: 1\n\n", true),
            ("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n", "", false),
            ("HTTP/1.1 200 OK\ncontent-length: 2\n\nok", "ok", false),
        ]
        for (text, expected, needsFinish) in cases {
            for step in [Int.max, 1, 7] {
                let events = try parse(text, step: step, finish: needsFinish)
                let (content, ended) = body(events)
                XCTAssertEqual(content, expected, "\(text.prefix(30)) step \(step)")
                XCTAssertTrue(ended, "\(text.prefix(30)) step \(step)")
                let heads = events.compactMap { event -> Int? in
                    if case .head(let status, _) = event { status } else { nil }
                }
                XCTAssertEqual(heads.count, 1, "one final head")
            }
        }
    }

    func testHeadFieldsAreLowercasedAndTrimmed() throws {
        let events = try parse("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate:  Bearer \r\nContent-Length: 0\r\n\r\n")
        guard case .head(let status, let headers) = events.first else { return XCTFail("no head") }
        XCTAssertEqual(status, 401)
        XCTAssertEqual(headers["www-authenticate"], "Bearer")
        XCTAssertEqual(events.last, .end)
    }

    func testMalformedResponsesAreTypedErrors() {
        let cases: [(String, HTTP1ResponseParseError.Reason)] = [
            ("SMTP 220 hi\r\n\r\n", .badStatusLine),
            ("HTTP/1.1 20 OK\r\n\r\n", .badStatusLine),
            ("HTTP/1.1 200 OK\r\nno colon\r\n\r\n", .badHeader),
            ("HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n", .badFraming),
            ("HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\n", .badFraming),
            ("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n", .badChunk),
            ("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nabX", .badChunk),
            ("HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\nab", .trailingBytes),
        ]
        for (text, reason) in cases {
            XCTAssertThrowsError(try parse(text), text) { error in
                XCTAssertEqual((error as? HTTP1ResponseParseError)?.reason, reason, text)
            }
        }
        var parser = HTTP1ResponseParser()
        XCTAssertThrowsError(try parser.feed(Array(repeating: UInt8(ascii: "a"), count: 70_000))) { error in
            XCTAssertEqual((error as? HTTP1ResponseParseError)?.reason, .headTooLarge)
        }
        var cut = HTTP1ResponseParser()
        XCTAssertNoThrow(try cut.feed(Array("HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\nab".utf8)))
        XCTAssertThrowsError(try cut.finish()) { error in
            XCTAssertEqual((error as? HTTP1ResponseParseError)?.reason, .truncated)
        }
    }
}
