import RelayHTTP
import XCTest

/// Stream states, identifiers and limits (h2spec 5.1, 5.1.1, 5.1.2, 6.4, 8.1).
final class HTTP2StreamStateTests: XCTestCase {
    private func frame(_ id: UInt32, _ payload: HTTP2Frame.Payload) -> [UInt8] { HTTP2TestClient.frame(id, payload) }

    func testRequestResponseRoundTrip() {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(1, path: "/v1/items?limit=5", [("accept", "application/json")])
        XCTAssertEqual(client.send(bytes), ["request 1 GET /v1/items?limit=5"])
        XCTAssertEqual(client.connection.openStreamCount, 1)
        var headers = HTTPHeaders()
        headers.add("content-type", "text/plain")
        headers.add("Connection", "close")
        XCTAssertTrue(
            client.connection.sendResponse(
                streamID: 1, head: HTTPResponseHead(status: 200, headers: headers), body: Array("hi".utf8)))
        XCTAssertEqual(client.read(), ["HEADERS 1 :status=200 content-type=text/plain", "DATA 1 hi END_STREAM"])
        XCTAssertEqual(client.connection.openStreamCount, 0)
        XCTAssertTrue(client.connection.isIdle)
        XCTAssertFalse(client.connection.sendResponse(streamID: 1, head: HTTPResponseHead(status: 200), body: []))
    }

    func testFramesOnIdleStreamsAreConnectionErrors() {
        let cases: [([UInt8], String, UInt)] = [
            (HTTP2TestClient.data(1, "x"), "error PROTOCOL_ERROR DATA on an idle stream", #line),
            (frame(1, .rstStream(.cancel)), "error PROTOCOL_ERROR RST_STREAM on an idle stream", #line),
            (frame(1, .windowUpdate(increment: 1)), "error PROTOCOL_ERROR WINDOW_UPDATE on an idle stream", #line),
            (
                frame(1, .continuation(fragment: [0x82], endHeaders: true)),
                "error PROTOCOL_ERROR CONTINUATION without a header block", #line
            ),
        ]
        for (bytes, expected, line) in cases {
            var client = HTTP2TestClient.connected()
            XCTAssertEqual(client.send(bytes), [expected], line: line)
            XCTAssertEqual(client.read().first?.hasPrefix("GOAWAY 0 PROTOCOL_ERROR"), true, line: line)
        }
    }

    func testPriorityOnIdleStreamIsIgnoredAndDoesNotUseTheId() {
        var client = HTTP2TestClient.connected()
        client.send(frame(5, .priority(HTTP2Priority(dependency: 0, weight: 10))))
        let bytes = client.request(3)
        XCTAssertEqual(client.send(bytes), ["request 3 GET /"])
        XCTAssertEqual(client.read(), [])
    }

    func testEvenStreamIdIsAConnectionError() {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(2)
        XCTAssertEqual(client.send(bytes), ["error PROTOCOL_ERROR even stream id from a client"])
    }

    func testDecreasingStreamIdIsAConnectionError() {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(5) + client.request(3)
        XCTAssertEqual(
            client.send(bytes), ["request 5 GET /", "error PROTOCOL_ERROR stream id not above the previous one"])
        XCTAssertEqual(client.read(), ["GOAWAY 5 PROTOCOL_ERROR stream id not above the previous one"])
    }

    func testDataOnHalfClosedRemoteStreamIsStreamClosed() {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(1)
        client.send(bytes)
        XCTAssertEqual(client.send(HTTP2TestClient.data(1, "late")), ["reset 1 STREAM_CLOSED"])
        XCTAssertEqual(client.read(), ["RST_STREAM 1 STREAM_CLOSED"])
        XCTAssertEqual(client.connection.openStreamCount, 0)
    }

    func testHeadersOnHalfClosedRemoteStreamIsStreamClosed() {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(1)
        client.send(bytes)
        let again = client.headers(1, [("x-trailer", "1")])
        XCTAssertEqual(client.send(again), ["reset 1 STREAM_CLOSED"])
        XCTAssertEqual(client.read(), ["RST_STREAM 1 STREAM_CLOSED"])
    }

    func testDataOnStreamClosedNormallyIsAConnectionError() {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(1)
        client.send(bytes)
        client.connection.sendResponse(streamID: 1, head: HTTPResponseHead(status: 204), body: [])
        _ = client.read()
        XCTAssertEqual(client.send(HTTP2TestClient.data(1, "x")), ["error STREAM_CLOSED DATA on a closed stream"])
    }

    func testHeadersOnStreamClosedNormallyIsAConnectionError() {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(1)
        client.send(bytes)
        client.connection.sendResponse(streamID: 1, head: HTTPResponseHead(status: 204), body: [])
        let again = client.request(1)
        XCTAssertEqual(client.send(again), ["error STREAM_CLOSED HEADERS on a closed stream"])
    }

    func testFramesAfterClientResetAreStreamClosed() {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(1, method: "POST", endStream: false)
        client.send(bytes)
        XCTAssertEqual(client.send(frame(1, .rstStream(.cancel))), [], "the server never heard of the stream")
        let headers = client.request(1)
        XCTAssertEqual(client.send(headers), [])
        XCTAssertEqual(client.read(), ["RST_STREAM 1 STREAM_CLOSED"])
        XCTAssertEqual(client.send(HTTP2TestClient.data(1, "x")), [])
        XCTAssertEqual(client.read(), [], "after our RST_STREAM, frames on the stream are ignored")
        client.send(frame(1, .windowUpdate(increment: 5)) + frame(1, .priority(HTTP2Priority())))
        XCTAssertEqual(client.read(), [], "WINDOW_UPDATE and PRIORITY on closed streams are ignored")
    }

    func testClientResetOfDeliveredStreamIsReported() {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(1, path: "/v1/stream")
        client.send(bytes)
        client.connection.sendHead(streamID: 1, head: HTTPResponseHead(status: 200), endStream: false)
        client.connection.sendData(streamID: 1, bytes: Array("data: 1\n\n".utf8), endStream: false)
        XCTAssertEqual(client.send(frame(1, .rstStream(.cancel))), ["reset 1 CANCEL"])
        XCTAssertEqual(client.read(), ["HEADERS 1 :status=200"], "queued DATA of a reset stream is dropped")
        XCTAssertFalse(client.connection.sendData(streamID: 1, bytes: [1], endStream: false))
    }

    func testFramesAfterOurResetAreIgnored() {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(1, method: "POST", endStream: false)
        client.send(bytes)
        client.connection.resetStream(streamID: 1, code: .cancel)
        XCTAssertEqual(client.send(HTTP2TestClient.data(1, "x", endStream: true)), [])
        XCTAssertEqual(client.read(), ["RST_STREAM 1 CANCEL"])
    }

    func testStreamsBeyondTheLimitAreRefused() {
        var client = HTTP2TestClient.connected(HTTP2Configuration(maxConcurrentStreams: 2))
        let bytes = client.request(1) + client.request(3) + client.request(5)
        XCTAssertEqual(client.send(bytes), ["request 1 GET /", "request 3 GET /"])
        XCTAssertEqual(client.read(), ["RST_STREAM 5 REFUSED_STREAM"])
        client.connection.sendResponse(streamID: 1, head: HTTPResponseHead(status: 204), body: [])
        let next = client.request(7)
        XCTAssertEqual(client.send(next), ["request 7 GET /"], "a finished stream frees its slot")
    }

    func testRaisingTheStreamLimitSendsSettings() {
        var client = HTTP2TestClient.connected(HTTP2Configuration(maxConcurrentStreams: 1))
        let bytes = client.request(1) + client.request(3)
        XCTAssertEqual(client.send(bytes), ["request 1 GET /"])
        client.connection.setMaxConcurrentStreams(10)
        XCTAssertEqual(client.read(), ["RST_STREAM 3 REFUSED_STREAM", "SETTINGS 3=10"])
        let more = client.request(5)
        XCTAssertEqual(client.send(more), ["request 5 GET /"])
    }

    func testRstStreamWithBadLengthIsAConnectionError() {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(1)
        client.send(bytes)
        XCTAssertEqual(
            client.send(frame(1, .unknown(type: .rstStream, flags: 0, bytes: [0, 0, 0]))),
            ["error FRAME_SIZE_ERROR RST_STREAM length is not 4"])
    }

    func testPriorityWithBadLengthIsAStreamError() {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(1, endStream: false)
        client.send(bytes)
        XCTAssertEqual(
            client.send(frame(1, .unknown(type: .priority, flags: 0, bytes: [0, 0, 0, 0, 0, 0]))), [])
        XCTAssertEqual(client.read(), ["RST_STREAM 1 FRAME_SIZE_ERROR"])
    }

    func testPriorityDependingOnItselfIsAStreamError() {
        var client = HTTP2TestClient.connected()
        client.send(frame(1, .priority(HTTP2Priority(dependency: 1))))
        XCTAssertEqual(client.read(), ["RST_STREAM 1 PROTOCOL_ERROR"])
        let bytes = client.headers(3, HTTP2TestClient.requestFields(), priority: HTTP2Priority(dependency: 3))
        XCTAssertEqual(client.send(bytes), [])
        XCTAssertEqual(client.read(), ["RST_STREAM 3 PROTOCOL_ERROR"])
    }

    func testHeadersOnlyResponseEndsTheStream() {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(1, method: "HEAD")
        client.send(bytes)
        XCTAssertTrue(client.connection.sendHead(streamID: 1, head: HTTPResponseHead(status: 200), endStream: true))
        XCTAssertFalse(client.connection.sendData(streamID: 1, bytes: [1], endStream: true))
        XCTAssertEqual(client.read(), ["HEADERS 1 :status=200 END_STREAM"])
    }

    func testSendDataBeforeHeadIsRefused() {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(1)
        client.send(bytes)
        XCTAssertFalse(client.connection.sendData(streamID: 1, bytes: [1], endStream: true))
        XCTAssertFalse(client.connection.sendData(streamID: 9, bytes: [1], endStream: true))
    }
}
