import RelayHTTP
import XCTest

final class SSEEncoderTests: XCTestCase {
    private func text(_ event: SSEEvent) -> String { String(decoding: SSEEncoder.encode(event), as: UTF8.self) }

    func testEventFieldsInOrder() {
        XCTAssertEqual(
            text(SSEEvent(id: "42", event: "activity.updated", data: #"{"seq":42}"#, retry: 3000)),
            "id: 42\nevent: activity.updated\nretry: 3000\ndata: {\"seq\":42}\n\n")
        XCTAssertEqual(text(SSEEvent(data: "x")), "data: x\n\n")
    }

    func testMultiLineDataBecomesSeveralDataLines() {
        XCTAssertEqual(text(SSEEvent(data: "a\nb\r\nc\rd")), "data: a\ndata: b\ndata: c\ndata: d\n\n")
        XCTAssertEqual(text(SSEEvent(data: "")), "data: \n\n")
        XCTAssertEqual(text(SSEEvent(data: "tail\n")), "data: tail\ndata: \n\n")
        XCTAssertEqual(text(SSEEvent(data: " lead")), "data:  lead\n\n", "one space separates; the rest is data")
    }

    func testLineBreaksAreStrippedFromIdAndEvent() {
        XCTAssertEqual(
            text(SSEEvent(id: "1\r\n2\u{0}", event: "a\nb", data: "x")), "id: 12\nevent: ab\ndata: x\n\n")
        XCTAssertEqual(text(SSEEvent(data: "x", retry: -1)), "data: x\n\n", "negative retry is left out")
    }

    func testCommentsAndHeartbeat() {
        XCTAssertEqual(String(decoding: SSEEncoder.heartbeat, as: UTF8.self), ": ping\n\n")
        XCTAssertEqual(SSEEncoder.comment("ping"), SSEEncoder.heartbeat)
        XCTAssertEqual(String(decoding: SSEEncoder.comment("a\nb"), as: UTF8.self), ": a\n: b\n\n")
    }

    func testAppendConcatenates() {
        var out: [UInt8] = []
        SSEEncoder.append(SSEEvent(id: "1", data: "a"), to: &out)
        SSEEncoder.append(SSEEvent(id: "2", data: "b"), to: &out)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "id: 1\ndata: a\n\nid: 2\ndata: b\n\n")
    }

    /// Data given as bytes (the relay's serialized events) is framed exactly as the same text.
    func testBytesAreFramedAsTheSameText() {
        for data in ["{\"a\":1}", "", "a\nb", "a\r\nb\rc\n"] {
            XCTAssertEqual(
                SSEEncoder.encode(id: "7", event: "activity.updated", data: Array(data.utf8)),
                SSEEncoder.encode(SSEEvent(id: "7", event: "activity.updated", data: data)), data)
        }
    }
}
