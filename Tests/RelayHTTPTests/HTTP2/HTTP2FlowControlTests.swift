import RelayHTTP
import XCTest

/// Flow control both ways and the response scheduler (RFC 9113 §5.2, §6.9; h2spec 6.9, 6.9.1, 6.9.2).
final class HTTP2FlowControlTests: XCTestCase {
    private func frame(_ id: UInt32, _ payload: HTTP2Frame.Payload) -> [UInt8] { HTTP2TestClient.frame(id, payload) }
    private func bytes(_ count: Int) -> [UInt8] { Array(repeating: 0x61, count: count) }
    private let ok = HTTPResponseHead(status: 200)

    // MARK: Receiving

    func testDataBeyondTheConnectionWindowIsAConnectionError() {
        var client = HTTP2TestClient.connected(
            HTTP2Configuration(
                connectionWindowSize: 65_535, maxFrameSize: 1 << 20, maxRequestBodyBytes: 1 << 20))
        let request = client.request(1, method: "POST", endStream: false)
        client.send(request)
        XCTAssertEqual(
            client.send(frame(1, .data(bytes: bytes(65_536), endStream: true))),
            ["error FLOW_CONTROL_ERROR DATA beyond the connection window"])
    }

    func testDataBeyondTheStreamWindowIsAStreamError() {
        var client = HTTP2TestClient.connected(HTTP2Configuration(initialWindowSize: 100))
        let request = client.request(1, method: "POST", endStream: false)
        client.send(request)
        XCTAssertEqual(client.send(frame(1, .data(bytes: bytes(101), endStream: true))), [])
        XCTAssertEqual(client.read(), ["RST_STREAM 1 FLOW_CONTROL_ERROR"])
    }

    func testOurSmallerWindowHoldsOnlyOnceAcknowledged() {
        var client = HTTP2TestClient(HTTP2Configuration(initialWindowSize: 100, maxRequestBodyBytes: 1000))
        _ = client.read()
        let request = client.request(1, method: "POST", endStream: false)
        client.send(HTTP2ServerConnection.clientPreface + frame(0, .settings([])) + request)
        XCTAssertEqual(
            client.send(frame(1, .data(bytes: bytes(500), endStream: true))),
            ["request 1 POST / body=\(String(repeating: "a", count: 500))"],
            "before the ACK the client may use the default 65,535")
        client.send(frame(0, .settingsAck))
        let second = client.request(3, method: "POST", endStream: false)
        client.send(second + frame(3, .data(bytes: bytes(101), endStream: true)))
        XCTAssertEqual(client.read().last, "RST_STREAM 3 FLOW_CONTROL_ERROR")
    }

    func testConsumedDataIsCreditedBack() {
        var client = HTTP2TestClient.connected(
            HTTP2Configuration(initialWindowSize: 100, connectionWindowSize: 65_535, maxRequestBodyBytes: 100_000))
        let request = client.request(1, method: "POST", endStream: false)
        client.send(request)
        client.send(frame(1, .data(bytes: bytes(49), endStream: false)))
        XCTAssertEqual(client.read(), [])
        client.send(frame(1, .data(bytes: bytes(1), endStream: false)))
        XCTAssertEqual(client.read(), ["WINDOW_UPDATE 1 50"])
        // The stream is credited within its window, but the connection only for bytes the server
        // consumed: a body still arriving holds its share of the connection window.
        var sent = 50
        var updates: [String] = []
        while sent < 40_000 {
            client.send(frame(1, .data(bytes: bytes(50), endStream: false)))
            sent += 50
            updates += client.read()
        }
        XCTAssertFalse(updates.contains { $0.hasPrefix("WINDOW_UPDATE 0 ") }, "\(updates)")
        client.send(frame(1, .data(bytes: [], endStream: true)))
        XCTAssertTrue(client.read().contains("WINDOW_UPDATE 0 40000"))
    }

    func testUnfinishedBodiesOnManyStreamsHoldTheConnectionWindow() {
        var client = HTTP2TestClient.connected(
            HTTP2Configuration(connectionWindowSize: 65_535, maxRequestBodyBytes: 100_000))
        var updates: [String] = []
        for stream in stride(from: UInt32(1), through: 7, by: 2) {
            client.send(client.request(stream, method: "POST", endStream: false))
            client.send(frame(stream, .data(bytes: bytes(16_000), endStream: false)))
            updates += client.read()
        }
        XCTAssertFalse(updates.contains { $0.hasPrefix("WINDOW_UPDATE 0 ") }, "\(updates)")
        // 64,000 of 65,535 held: a further 16,000 exceed the window, which no credit reopened.
        client.send(client.request(9, method: "POST", endStream: false))
        client.send(frame(9, .data(bytes: bytes(16_000), endStream: false)))
        XCTAssertEqual(client.read().first { $0.hasPrefix("GOAWAY") }.map { $0.contains("FLOW_CONTROL_ERROR") }, true)
    }

    func testPaddingCountsAgainstWindows() {
        var client = HTTP2TestClient.connected(HTTP2Configuration(initialWindowSize: 100))
        let request = client.request(1, method: "POST", endStream: false)
        client.send(request)
        client.send(frame(1, .data(bytes: bytes(50), endStream: false, padding: 49)))
        XCTAssertEqual(client.read(), ["WINDOW_UPDATE 1 100"])
        client.send(frame(1, .data(bytes: bytes(1), endStream: false, padding: 99)))
        XCTAssertEqual(client.read(), ["RST_STREAM 1 FLOW_CONTROL_ERROR"], "101 flow-controlled octets")
    }

    func testDiscardedBodiesStillCreditTheConnection() {
        var client = HTTP2TestClient.connected(
            HTTP2Configuration(connectionWindowSize: 65_535, maxFrameSize: 40_000, maxRequestBodyBytes: 10))
        let request = client.request(1, method: "POST", endStream: false)
        client.send(request)
        XCTAssertEqual(client.send(frame(1, .data(bytes: bytes(40_000), endStream: false))), ["tooLarge 1 POST /"])
        XCTAssertEqual(client.read(), ["WINDOW_UPDATE 0 40000"])
    }

    func testBodyCrossingTheLimitInItsLastFrameIsStillReported() {
        var client = HTTP2TestClient.connected(
            HTTP2Configuration(connectionWindowSize: 65_535, maxFrameSize: 40_000, maxRequestBodyBytes: 10))
        client.send(client.request(1, method: "POST", endStream: false))
        XCTAssertEqual(client.send(frame(1, .data(bytes: bytes(11), endStream: true))), ["tooLarge 1 POST /"])
    }

    // MARK: Sending

    func testResponseWaitsForTheStreamWindowAndResumesOnWindowUpdate() {
        var client = HTTP2TestClient.connected(settings: [HTTP2Setting(.initialWindowSize, 5)])
        let request = client.request(1)
        client.send(request)
        client.connection.sendResponse(streamID: 1, head: ok, body: Array("hello world".utf8))
        XCTAssertEqual(client.read(), ["HEADERS 1 :status=200", "DATA 1 hello"])
        XCTAssertEqual(client.connection.bufferedBytes(streamID: 1), 6)
        XCTAssertFalse(client.connection.hasOutput)
        client.send(frame(1, .windowUpdate(increment: 6)))
        XCTAssertTrue(client.connection.hasOutput)
        XCTAssertEqual(client.read(), ["DATA 1  world END_STREAM"])
        XCTAssertEqual(client.connection.openStreamCount, 0)
    }

    func testWindowOfOneSendsOneOctet() {
        var client = HTTP2TestClient.connected(settings: [HTTP2Setting(.initialWindowSize, 1)])
        let request = client.request(1)
        client.send(request)
        client.connection.sendResponse(streamID: 1, head: ok, body: Array("abc".utf8))
        XCTAssertEqual(client.read(), ["HEADERS 1 :status=200", "DATA 1 a"])
    }

    func testInitialWindowChangeAppliesToOpenStreams() {
        var client = HTTP2TestClient.connected(settings: [HTTP2Setting(.initialWindowSize, 0)])
        let request = client.request(1)
        client.send(request)
        client.connection.sendResponse(streamID: 1, head: ok, body: Array("abc".utf8))
        XCTAssertEqual(client.read(), ["HEADERS 1 :status=200"])
        client.send(frame(0, .settings([HTTP2Setting(.initialWindowSize, 1)])))
        XCTAssertEqual(client.read(), ["SETTINGS ACK", "DATA 1 a"])
    }

    func testWindowMayGoNegative() {
        var client = HTTP2TestClient.connected(settings: [HTTP2Setting(.initialWindowSize, 3)])
        let request = client.request(1)
        client.send(request)
        client.connection.sendResponse(streamID: 1, head: ok, body: Array("abcdef".utf8))
        XCTAssertEqual(client.read(), ["HEADERS 1 :status=200", "DATA 1 abc"])
        client.send(frame(0, .settings([HTTP2Setting(.initialWindowSize, 1)])))  // window 0 - 2 = -2
        client.send(frame(1, .windowUpdate(increment: 2)))
        XCTAssertEqual(client.read(), ["SETTINGS ACK"], "window back at 0")
        client.send(frame(1, .windowUpdate(increment: 1)))
        XCTAssertEqual(client.read(), ["DATA 1 d"])
    }

    func testConnectionWindowExhaustionAndRecovery() {
        var client = HTTP2TestClient.connected()
        let request = client.request(1)
        client.send(request)
        client.connection.sendResponse(streamID: 1, head: ok, body: bytes(70_000))
        XCTAssertEqual(
            client.read(),
            [
                "HEADERS 1 :status=200", "DATA 1 <16384 bytes>", "DATA 1 <16384 bytes>", "DATA 1 <16384 bytes>",
                "DATA 1 <16383 bytes>",
            ])
        client.send(frame(1, .windowUpdate(increment: 10_000)))
        XCTAssertEqual(client.read(), [], "the connection window is still shut")
        client.send(frame(0, .windowUpdate(increment: 10_000)))
        XCTAssertEqual(client.read(), ["DATA 1 <4465 bytes> END_STREAM"])
    }

    func testWindowOverflowIsAFlowControlError() {
        var client = HTTP2TestClient.connected()
        XCTAssertEqual(
            client.send(frame(0, .windowUpdate(increment: 0x7fff_ffff))),
            ["error FLOW_CONTROL_ERROR connection window above 2^31-1"])
        client = HTTP2TestClient.connected()
        let request = client.request(1)
        client.send(request)
        XCTAssertEqual(client.send(frame(1, .windowUpdate(increment: 0x7fff_ffff))), ["reset 1 FLOW_CONTROL_ERROR"])
        XCTAssertEqual(client.read(), ["RST_STREAM 1 FLOW_CONTROL_ERROR"])
    }

    func testInitialWindowChangeThatOverflowsAStreamIsAConnectionError() {
        var client = HTTP2TestClient.connected()
        let request = client.request(1)
        client.send(request)
        client.send(frame(1, .windowUpdate(increment: 0x7fff_ffff - 65_535)))
        XCTAssertEqual(
            client.send(frame(0, .settings([HTTP2Setting(.initialWindowSize, 65_536)]))),
            ["error FLOW_CONTROL_ERROR SETTINGS_INITIAL_WINDOW_SIZE overflows a stream window"])
    }

    func testZeroIncrementIsAnError() {
        var client = HTTP2TestClient.connected()
        XCTAssertEqual(
            client.send(frame(0, .unknown(type: .windowUpdate, flags: 0, bytes: [0, 0, 0, 0]))),
            ["error PROTOCOL_ERROR WINDOW_UPDATE increment of 0"])
        client = HTTP2TestClient.connected()
        let request = client.request(1)
        client.send(request)
        XCTAssertEqual(
            client.send(frame(1, .unknown(type: .windowUpdate, flags: 0, bytes: [0, 0, 0, 0]))),
            ["reset 1 PROTOCOL_ERROR"])
        client = HTTP2TestClient.connected()
        XCTAssertEqual(
            client.send(frame(1, .unknown(type: .windowUpdate, flags: 0, bytes: [0, 0, 0, 0]))),
            ["error PROTOCOL_ERROR WINDOW_UPDATE on an idle stream"])
    }

    func testDataFramesFollowThePeersMaxFrameSize() {
        var client = HTTP2TestClient.connected(settings: [HTTP2Setting(.maxFrameSize, 20_000)])
        let request = client.request(1)
        client.send(request)
        client.connection.sendResponse(streamID: 1, head: ok, body: bytes(30_000))
        XCTAssertEqual(
            client.read(), ["HEADERS 1 :status=200", "DATA 1 <20000 bytes>", "DATA 1 <10000 bytes> END_STREAM"])
    }

    // MARK: Scheduling

    func testStreamsTakeTurns() {
        var client = HTTP2TestClient.connected()
        let requests = client.request(1) + client.request(3)
        client.send(requests)
        client.connection.sendResponse(streamID: 1, head: ok, body: bytes(40_000))
        client.connection.sendResponse(streamID: 3, head: ok, body: bytes(40_000))
        let data = client.read().filter { $0.hasPrefix("DATA") }.map { $0.prefix(6) }
        XCTAssertEqual(data, ["DATA 1", "DATA 3", "DATA 1", "DATA 3"])
    }

    func testABlockedStreamDoesNotHoldUpOthers() {
        var client = HTTP2TestClient.connected(settings: [HTTP2Setting(.initialWindowSize, 0)])
        let requests = client.request(1, path: "/v1/stream") + client.request(3)
        client.send(requests)
        client.connection.sendHead(streamID: 1, head: ok, endStream: false)
        client.connection.sendData(streamID: 1, bytes: Array("event: a\n\n".utf8), endStream: false)
        client.connection.sendResponse(streamID: 3, head: ok, body: Array("done".utf8))
        XCTAssertEqual(client.read(), ["HEADERS 1 :status=200", "HEADERS 3 :status=200"])
        client.send(frame(3, .windowUpdate(increment: 100)))
        XCTAssertEqual(client.read(), ["DATA 3 done END_STREAM"])
        XCTAssertEqual(client.connection.bufferedBytes(streamID: 1), 10)
        client.connection.sendData(streamID: 1, bytes: Array("event: b\n\n".utf8), endStream: false)
        XCTAssertEqual(client.connection.bufferedBytes(streamID: 1), 20, "a slow subscriber's backlog is visible")
        client.send(frame(1, .windowUpdate(increment: 100)))
        XCTAssertEqual(client.read(), ["DATA 1 event: a\n\nevent: b\n\n"])
        XCTAssertEqual(client.connection.bufferedBytes(streamID: 1), 0)
    }

    func testStreamingResponseEndsWithAnEmptyDataFrame() {
        var client = HTTP2TestClient.connected()
        let request = client.request(1, path: "/v1/stream")
        client.send(request)
        client.connection.sendHead(streamID: 1, head: ok, endStream: false)
        for index in 0..<3 {
            client.connection.sendData(streamID: 1, bytes: Array("id: \(index)\n".utf8), endStream: false)
            XCTAssertEqual(client.read().last, "DATA 1 id: \(index)\n")
        }
        XCTAssertEqual(client.connection.openStreamCount, 1)
        client.connection.sendData(streamID: 1, bytes: [], endStream: true)
        XCTAssertEqual(client.read(), ["DATA 1  END_STREAM"])
        XCTAssertEqual(client.connection.openStreamCount, 0)
    }

    func testOutputIsHandedOutInChunks() {
        var client = HTTP2TestClient.connected(HTTP2Configuration(outputChunkSize: 20_000))
        let request = client.request(1)
        client.send(request)
        client.send(frame(0, .windowUpdate(increment: 1_000_000)))
        client.send(frame(1, .windowUpdate(increment: 1_000_000)))
        client.connection.sendResponse(streamID: 1, head: ok, body: bytes(100_000))
        var chunks: [Int] = []
        while let chunk = client.connection.nextOutput() { chunks.append(chunk.count) }
        XCTAssertGreaterThan(chunks.count, 3)
        XCTAssertTrue(chunks.allSatisfy { $0 <= 20_000 + 16_384 + 9 + 100 }, "\(chunks)")
    }
}
