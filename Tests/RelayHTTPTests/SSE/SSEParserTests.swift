import RelayHTTP
import XCTest

final class SSEParserTests: XCTestCase {
    private func parse(_ text: String, parser: inout SSEParser) throws -> [SSEEvent] {
        try parser.feed(Array(text.utf8))
    }

    private func parse(_ text: String) throws -> [SSEEvent] {
        var parser = SSEParser()
        return try parse(text, parser: &parser)
    }

    func testFieldsAndDefaults() throws {
        XCTAssertEqual(
            try parse("id: 7\nevent: clock\nretry: 1500\ndata: {}\n\n"),
            [SSEEvent(id: "7", event: "clock", data: "{}", retry: 1500)])
        XCTAssertEqual(try parse("data:no space\n\n"), [SSEEvent(data: "no space")])
        XCTAssertEqual(try parse("data:  two spaces\n\n"), [SSEEvent(data: " two spaces")])
        XCTAssertEqual(try parse("data\n\n"), [SSEEvent(data: "")], "a field name alone has an empty value")
        XCTAssertEqual(try parse("data: a\ndata: b\n\n"), [SSEEvent(data: "a\nb")])
    }

    func testLineEndingsCRLFCRAndLF() throws {
        let expected = [SSEEvent(id: "1", data: "a\nb"), SSEEvent(id: "2", data: "c")]
        XCTAssertEqual(try parse("id: 1\r\ndata: a\r\ndata: b\r\n\r\nid: 2\r\ndata: c\r\n\r\n"), expected)
        XCTAssertEqual(try parse("id: 1\rdata: a\rdata: b\r\rid: 2\rdata: c\r\r"), expected)
        XCTAssertEqual(try parse("id: 1\ndata: a\r\ndata: b\r\rid: 2\ndata: c\n\r\n"), expected)
    }

    func testCRLFSplitAcrossFeeds() throws {
        var parser = SSEParser()
        XCTAssertEqual(try parse("data: a\r", parser: &parser), [])
        XCTAssertEqual(try parse("\n\r", parser: &parser), [SSEEvent(data: "a")], "CR LF is one line end")
        XCTAssertEqual(try parse("\ndata: b\n\n", parser: &parser), [SSEEvent(data: "b")])
    }

    func testLastEventIDPersistsAndResets() throws {
        var parser = SSEParser()
        let events = try parse(
            "id: 5\ndata: a\n\n"
                + "data: b\n\n"  // inherits 5
                + "id: 6\n\n"  // no data: nothing dispatched, but the id changes
                + "data: c\n\n"
                + "id: x\u{0}y\ndata: d\n\n"  // an id with NUL is ignored
                + "id\ndata: e\n\n",  // an empty id clears it
            parser: &parser)
        XCTAssertEqual(events.map(\.id), ["5", "5", "6", "6", nil])
        XCTAssertEqual(events.map(\.data), ["a", "b", "c", "d", "e"])
        XCTAssertEqual(parser.lastEventID, "")
        _ = try parse("id: 99\n", parser: &parser)
        XCTAssertEqual(parser.lastEventID, "99", "an id counts as soon as its line ends")
    }

    func testCommentsUnknownFieldsAndRetryRules() throws {
        var parser = SSEParser()
        let events = try parse(
            ": ping\n\n:\nfoo: bar\nretry: 12a\nretry: 250\nevent: t\ndata: x\n\nretry: 9\n\n", parser: &parser)
        XCTAssertEqual(events, [SSEEvent(event: "t", data: "x", retry: 250)])
        XCTAssertEqual(parser.commentCount, 2)
        XCTAssertEqual(parser.reconnectionTime, 9)
    }

    func testEventTypeDoesNotLeakIntoTheNextEvent() throws {
        XCTAssertEqual(
            try parse("event: a\ndata: 1\n\ndata: 2\n\nevent: b\n\ndata: 3\n\n"),
            [SSEEvent(event: "a", data: "1"), SSEEvent(data: "2"), SSEEvent(data: "3")])
    }

    func testLeadingBOMIsDroppedOnlyAtStreamStart() throws {
        var parser = SSEParser()
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        XCTAssertEqual(try parser.feed(bom + Array("data: a\n\n".utf8)), [SSEEvent(data: "a")])
        XCTAssertEqual(try parser.feed(bom + Array("data: b\n\n".utf8)), [], "a later BOM makes an unknown field")
    }

    func testUnterminatedEventIsNotDispatched() throws {
        XCTAssertEqual(try parse("data: a\n"), [])
        XCTAssertEqual(try parse("data: a"), [])
    }

    func testLimits() {
        var parser = SSEParser(maxLineBytes: 16, maxEventBytes: 8)
        XCTAssertThrowsError(try parser.feed(Array(("data: " + String(repeating: "x", count: 20)).utf8))) {
            XCTAssertEqual($0 as? SSEParseError, SSEParseError(.lineTooLong, limit: 16))
        }
        parser = SSEParser(maxLineBytes: 16, maxEventBytes: 8)
        XCTAssertThrowsError(try parser.feed(Array("data: 1234\ndata: 5678\n".utf8))) {
            XCTAssertEqual($0 as? SSEParseError, SSEParseError(.eventTooLarge, limit: 8))
        }
    }

    func testEncoderOutputParsesBackByteByByte() throws {
        let events = [
            SSEEvent(id: "1", event: "activity.started", data: #"{"seq":1}"#, retry: 1000),
            SSEEvent(id: "2", event: "push.received", data: "line one\nline two\n"),
            SSEEvent(id: "3", data: ""),
            SSEEvent(id: "4", event: "clock", data: " padded "),
        ]
        var stream: [UInt8] = []
        for event in events {
            SSEEncoder.append(event, to: &stream)
            stream += SSEEncoder.heartbeat
        }
        var parser = SSEParser()
        var parsed: [SSEEvent] = []
        for byte in stream { parsed += try parser.feed([byte]) }
        XCTAssertEqual(parsed, events)
        XCTAssertEqual(parser.commentCount, events.count)
        XCTAssertEqual(parser.lastEventID, "4")
    }
}
