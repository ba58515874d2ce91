import RelayHTTP
import XCTest

/// Field blocks across HEADERS and CONTINUATION, HPACK failures and header list limits
/// (h2spec 4.3, 5.5, 6.2, 6.10, hpack).
final class HTTP2HeaderBlockTests: XCTestCase {
    private func frame(_ id: UInt32, _ payload: HTTP2Frame.Payload) -> [UInt8] { HTTP2TestClient.frame(id, payload) }

    /// The request block for stream 1 cut in three, sent as HEADERS + 2 CONTINUATION.
    private func splitRequest(_ client: inout HTTP2TestClient) -> [[UInt8]] {
        let block = client.block(HTTP2TestClient.requestFields(path: "/split", [("x-long", "0123456789")]))
        let cut1 = block.count / 3
        let cut2 = 2 * block.count / 3
        return [
            frame(1, .headers(fragment: Array(block[..<cut1]), endStream: true, endHeaders: false)),
            frame(1, .continuation(fragment: Array(block[cut1..<cut2]), endHeaders: false)),
            frame(1, .continuation(fragment: Array(block[cut2...]), endHeaders: true)),
        ]
    }

    func testHeadersWithContinuationsFormOneRequest() {
        var client = HTTP2TestClient.connected()
        let frames = splitRequest(&client)
        XCTAssertEqual(client.send(frames[0]), [])
        XCTAssertFalse(client.connection.isIdle)
        XCTAssertEqual(client.send(frames[1] + frames[2]), ["request 1 GET /split"])
    }

    func testAnyOtherFrameInsideAHeaderBlockIsAConnectionError() {
        let interruptions: [([UInt8], UInt)] = [
            (frame(1, .priority(HTTP2Priority())), #line),
            (frame(0, .ping(opaque: 0, ack: false)), #line),
            (frame(1, .data(bytes: [], endStream: false)), #line),
            (frame(0, .unknown(type: .init(0x42), flags: 0, bytes: [])), #line),
            (frame(3, .continuation(fragment: [], endHeaders: true)), #line),
            (frame(1, .unknown(type: .priority, flags: 0, bytes: [0, 0])), #line),  // malformed PRIORITY
        ]
        for (interruption, line) in interruptions {
            var client = HTTP2TestClient.connected()
            let frames = splitRequest(&client)
            XCTAssertEqual(
                client.send(frames[0] + interruption),
                ["error PROTOCOL_ERROR header block interrupted by another frame"], line: line)
        }
        var client = HTTP2TestClient.connected()
        let frames = splitRequest(&client)
        let other = client.request(3)
        XCTAssertEqual(
            client.send(frames[0] + other), ["error PROTOCOL_ERROR header block interrupted by another frame"])
    }

    func testContinuationAfterEndHeadersIsAConnectionError() {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(1, endStream: false)
        XCTAssertEqual(
            client.send(bytes + frame(1, .continuation(fragment: [0x82], endHeaders: true))),
            ["error PROTOCOL_ERROR CONTINUATION without a header block"])
    }

    func testContinuationAfterDataIsAConnectionError() {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(1, method: "POST", endStream: false)
        XCTAssertEqual(
            client.send(bytes + HTTP2TestClient.data(1, "x") + frame(1, .continuation(fragment: [], endHeaders: true))),
            ["error PROTOCOL_ERROR CONTINUATION without a header block"])
    }

    func testHugeHeaderBlockIsCutOff() {
        var client = HTTP2TestClient.connected()
        let bytes = frame(1, .headers(fragment: [0x82], endStream: true, endHeaders: false))
        var events = client.send(bytes)
        let filler = frame(1, .continuation(fragment: Array(repeating: 0x82, count: 16_000), endHeaders: false))
        for _ in 0..<3 where events.isEmpty {
            events = client.send(filler)
        }
        XCTAssertEqual(events, ["error ENHANCE_YOUR_CALM header block too large"])
    }

    func testEmptyContinuationFloodIsCutOff() {
        var client = HTTP2TestClient.connected(HTTP2Configuration(controlFrameBudget: 50))
        var bytes = frame(1, .headers(fragment: [], endStream: true, endHeaders: false))
        for _ in 0..<60 { bytes += frame(1, .continuation(fragment: [], endHeaders: false)) }
        XCTAssertEqual(client.send(bytes), ["error ENHANCE_YOUR_CALM too many control frames"])
    }

    func testUndecodableBlockIsACompressionError() {
        let blocks: [([UInt8], UInt)] = [
            ([0xbe], #line),  // index 62: the dynamic table is empty
            ([0x82, 0x20], #line),  // table size update after a field
            ([0x40, 0x85], #line),  // literal whose name is cut short
        ]
        for (block, line) in blocks {
            var client = HTTP2TestClient.connected()
            XCTAssertEqual(
                client.send(frame(1, .headers(fragment: block, endStream: true, endHeaders: true))),
                ["error COMPRESSION_ERROR header block could not be decompressed"], line: line)
        }
    }

    func testOversizedHeaderListIsAnswered431() {
        var client = HTTP2TestClient.connected(HTTP2Configuration(maxHeaderListSize: 300))
        let bytes = client.request(1, [("cookie", String(repeating: "c", count: 400))])
        XCTAssertEqual(client.send(bytes), [], "the server never hears of the request")
        XCTAssertEqual(client.read(), ["HEADERS 1 :status=431 END_STREAM"])
        let next = client.request(3, [("cookie", "small")])
        XCTAssertEqual(client.send(next), ["request 3 GET /"], "the connection and HPACK state survive")
    }

    func testOversizedHeaderListWithBodyPendingIsAnsweredAndReset() {
        var client = HTTP2TestClient.connected(HTTP2Configuration(maxHeaderListSize: 300))
        let bytes = client.request(
            1, method: "POST", [("cookie", String(repeating: "c", count: 400))], endStream: false)
        client.send(bytes)
        XCTAssertEqual(client.read(), ["HEADERS 1 :status=431 END_STREAM", "RST_STREAM 1 NO_ERROR"])
        XCTAssertEqual(client.send(HTTP2TestClient.data(1, "ignored", endStream: true)), [])
    }

    func testRefusedAndIgnoredBlocksStillUpdateTheDecoder() throws {
        var client = HTTP2TestClient.connected(HTTP2Configuration(maxConcurrentStreams: 1))
        let first = client.request(1)
        let refused = client.request(3, [("x-indexed", "value-1")])
        XCTAssertEqual(client.send(first + refused), ["request 1 GET /"])
        client.connection.sendResponse(streamID: 1, head: HTTPResponseHead(status: 204), body: [])
        let again = client.request(5, [("x-indexed", "value-1")])
        XCTAssertEqual(client.send(again), ["request 5 GET /"])
        guard case .request(_, let request, _, _)? = client.events.last else { return XCTFail("no request") }
        XCTAssertEqual(request.headers["x-indexed"], "value-1")
    }

    func testTrailersEndTheRequestAndAreDropped() {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(1, method: "POST", endStream: false)
        let trailers = client.headers(1, [("x-checksum", "abc")], endStream: true)
        XCTAssertEqual(client.send(bytes + HTTP2TestClient.data(1, "ab") + trailers), ["request 1 POST / body=ab"])
    }

    func testTrailersWithPseudoHeaderAreMalformed() {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(1, method: "POST", endStream: false)
        let trailers = client.headers(1, [(":method", "GET")], endStream: true)
        XCTAssertEqual(client.send(bytes + trailers), [])
        XCTAssertEqual(client.read(), ["RST_STREAM 1 PROTOCOL_ERROR"])
    }

    func testSecondHeadersWithoutEndStreamIsMalformed() {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(1, method: "POST", endStream: false)
        let second = client.headers(1, [("x-more", "1")], endStream: false)
        XCTAssertEqual(client.send(bytes + second), [])
        XCTAssertEqual(client.read(), ["RST_STREAM 1 PROTOCOL_ERROR"])
    }

    func testLargeResponseHeadersAreSplitIntoContinuations() {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(1)
        client.send(bytes)
        var headers = HTTPHeaders()
        // "~" is not worth Huffman-coding, so each value takes its full 6,000 octets.
        for index in 0..<6 { headers.add("x-big-\(index)", String(repeating: "~", count: 6_000)) }
        client.connection.sendResponse(streamID: 1, head: HTTPResponseHead(status: 200, headers: headers), body: [])
        let frames = client.read()
        XCTAssertEqual(frames.map { $0.prefix(14) }, ["HEADERS 1 ... ", "CONTINUATION 1", "CONTINUATION 1"])
        XCTAssertEqual(client.responseHeaders[1]?.count, 7)
        XCTAssertEqual(client.responseHeaders[1]?.last?.value.count, 6_000)
    }
}
