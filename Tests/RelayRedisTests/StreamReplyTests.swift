import RelayRedis
import XCTest

/// `XREAD`/`XRANGE` replies spelled as the server sends them, read through the RESP parser.
final class StreamReplyTests: XCTestCase {
    private func value(_ text: String) throws -> RESPValue {
        var parser = RESPParser()
        parser.append(Array(text.utf8))
        return try XCTUnwrap(try parser.next())
    }

    private func entry(_ id: String, _ pairs: [(String, String)]) -> StreamEntry {
        StreamEntry(
            id: StreamID(id)!, fields: pairs.map { .init(name: Array($0.0.utf8), value: Array($0.1.utf8)) })
    }

    private let key = Array("{dev:1}:ev".utf8)

    func testStreamIDParsesAndOrders() {
        XCTAssertEqual(StreamID("5-3"), StreamID(milliseconds: 5, sequence: 3))
        XCTAssertEqual(StreamID("7"), StreamID(milliseconds: 7, sequence: 0))
        XCTAssertEqual(StreamID("18446744073709551615-0")?.milliseconds, UInt64.max)
        for bad in ["", "-", "1-", "-1", "1-2-3", "+1-2", " 1-2", "1-x", "18446744073709551616-0", "$", ">"] {
            XCTAssertNil(StreamID(bad), bad)
        }
        XCTAssertLessThan(StreamID("0-9")!, StreamID("0-10")!)
        XCTAssertLessThan(StreamID("1-99")!, StreamID("2-0")!)
        XCTAssertEqual(StreamID("0-12")?.description, "0-12")
    }

    func testXReadInRESP3AndRESP2() throws {
        // RESP3: %1 { key => [[id, [f, v]], [id, [f, v, f, v]]] }
        let resp3 = try value(
            "%1\r\n$10\r\n{dev:1}:ev\r\n*2\r\n"
                + "*2\r\n$3\r\n0-1\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n"
                + "*2\r\n$3\r\n0-2\r\n*4\r\n$1\r\na\r\n$1\r\n2\r\n$1\r\nb\r\n$0\r\n\r\n")
        let expected = [entry("0-1", [("a", "1")]), entry("0-2", [("a", "2"), ("b", "")])]
        XCTAssertEqual(try StreamReply.entries(of: key, in: resp3, maxEntries: 2), expected)
        // RESP2: *1 [[key, [[id, [f, v]], ...]]]
        let resp2 = try value(
            "*1\r\n*2\r\n$10\r\n{dev:1}:ev\r\n*2\r\n"
                + "*2\r\n$3\r\n0-1\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n"
                + "*2\r\n$3\r\n0-2\r\n*4\r\n$1\r\na\r\n$1\r\n2\r\n$1\r\nb\r\n$0\r\n\r\n")
        XCTAssertEqual(try StreamReply.entries(of: key, in: resp2, maxEntries: 2), expected)
        XCTAssertEqual(expected[1].value(of: "b"), [])
        // No new entries: RESP3 null, RESP2 null array.
        XCTAssertEqual(try StreamReply.entries(of: key, in: try value("_\r\n"), maxEntries: 2), [])
        XCTAssertEqual(try StreamReply.entries(of: key, in: try value("*-1\r\n"), maxEntries: 2), [])
        // XRANGE: the bare entry array; a field list may be a map.
        XCTAssertEqual(
            try StreamReply.entries(try value("*1\r\n*2\r\n+9-0\r\n%1\r\n+k\r\n+v\r\n"), maxEntries: 1),
            [entry("9-0", [("k", "v")])])
        let two = try StreamReply.streams(
            try value("%2\r\n$1\r\nx\r\n*0\r\n$1\r\ny\r\n*1\r\n*2\r\n$3\r\n1-1\r\n*0\r\n"), maxEntries: 5)
        XCTAssertEqual(two.map { String(decoding: $0.key, as: UTF8.self) }, ["x", "y"])
        XCTAssertEqual(two.map(\.entries.count), [0, 1])
    }

    func testMalformedRepliesAreErrorsNotCrashes() throws {
        func reject(_ text: String, _ error: StreamReplyError, maxEntries: Int = 10, line: UInt = #line) throws {
            let reply = try value(text)
            XCTAssertThrowsError(try StreamReply.entries(of: key, in: reply, maxEntries: maxEntries), line: line) {
                XCTAssertEqual($0 as? StreamReplyError, error, line: line)
            }
        }
        let head = "%1\r\n$10\r\n{dev:1}:ev\r\n"
        try reject(":1\r\n", .notStreams)
        try reject("*1\r\n*1\r\n$1\r\nk\r\n", .notStreams)  // a pair without entries
        try reject("%1\r\n:5\r\n*0\r\n", .notStreams)  // a key that is not a string
        try reject("%1\r\n$5\r\nother\r\n*0\r\n", .unexpectedKey)
        try reject("%2\r\n$1\r\na\r\n*0\r\n$1\r\nb\r\n*0\r\n", .unexpectedKey)
        try reject(head + "+nope\r\n", .malformedEntry)
        try reject(head + "*1\r\n*1\r\n$3\r\n0-1\r\n", .malformedEntry)  // entry without fields
        try reject(head + "*1\r\n*2\r\n:5\r\n*0\r\n", .malformedEntry)  // id not a string
        try reject(head + "*1\r\n*2\r\n$5\r\nabc-1\r\n*0\r\n", .badID)
        try reject(head + "*1\r\n*2\r\n$1\r\n7\r\n*0\r\n", .badID)  // a reply id always has both parts
        try reject(head + "*1\r\n*2\r\n$3\r\n0-1\r\n*1\r\n$1\r\na\r\n", .oddFields)
        try reject(head + "*1\r\n*2\r\n$3\r\n0-1\r\n*2\r\n$1\r\na\r\n:1\r\n", .malformedEntry)
        try reject(head + "*1\r\n*2\r\n$3\r\n0-1\r\n:3\r\n", .malformedEntry)
        try reject(
            head + "*2\r\n*2\r\n$3\r\n0-2\r\n*0\r\n*2\r\n$3\r\n0-2\r\n*0\r\n", .notIncreasing(StreamID("0-2")!))
        try reject(
            head + "*2\r\n*2\r\n$3\r\n0-2\r\n*0\r\n*2\r\n$3\r\n0-1\r\n*0\r\n", .notIncreasing(StreamID("0-1")!))
        // More entries than COUNT asked for: refused before any is read.
        try reject(head + "*3\r\n*2\r\n$3\r\n0-1\r\n*0\r\n:1\r\n:2\r\n", .tooManyEntries(3), maxEntries: 2)
        XCTAssertThrowsError(
            try StreamReply.streams(
                try value("%2\r\n$1\r\na\r\n*1\r\n*2\r\n$3\r\n0-1\r\n*0\r\n$1\r\nb\r\n*1\r\n*2\r\n$3\r\n0-1\r\n*0\r\n"),
                maxEntries: 1)
        ) { XCTAssertEqual($0 as? StreamReplyError, .tooManyEntries(1)) }
    }
}
