import RelayHTTP
import XCTest

/// GOAWAY both ways, connection lifetime queries, and flood / rapid-reset protection.
final class HTTP2ShutdownAndFloodTests: XCTestCase {
    private func frame(_ id: UInt32, _ payload: HTTP2Frame.Payload) -> [UInt8] { HTTP2TestClient.frame(id, payload) }
    private let noContent = HTTPResponseHead(status: 204)

    func testGracefulGoawayLetsAcceptedStreamsFinish() {
        var client = HTTP2TestClient.connected()
        let requests = client.request(1) + client.request(3)
        client.send(requests)
        client.connection.sendGoaway(debugData: Array(#"{"reason":"Shutdown"}"#.utf8))
        XCTAssertEqual(client.read(), [#"GOAWAY 3 NO_ERROR {"reason":"Shutdown"}"#])
        let late = client.request(5, method: "POST", endStream: false)
        XCTAssertEqual(
            client.send(late + HTTP2TestClient.data(5, "x", endStream: true)), [], "streams above 3 are ignored")
        XCTAssertFalse(client.connection.canClose)
        client.connection.sendResponse(streamID: 1, head: noContent, body: [])
        client.connection.sendResponse(streamID: 3, head: noContent, body: [])
        XCTAssertFalse(client.connection.canClose, "output not taken yet")
        XCTAssertEqual(client.read(), ["HEADERS 1 :status=204 END_STREAM", "HEADERS 3 :status=204 END_STREAM"])
        XCTAssertTrue(client.connection.canClose)
    }

    func testAbortiveGoawayDropsEverything() {
        var client = HTTP2TestClient.connected()
        let request = client.request(1)
        client.send(request)
        client.connection.sendGoaway(code: .internalError, debugData: [])
        XCTAssertFalse(client.connection.sendResponse(streamID: 1, head: noContent, body: []))
        XCTAssertEqual(client.read(), ["GOAWAY 1 INTERNAL_ERROR "])
        XCTAssertTrue(client.connection.canClose)
        XCTAssertEqual(client.connection.openStreamCount, 0)
    }

    func testConnectionErrorReportsTheLastAcceptedStream() {
        var client = HTTP2TestClient.connected()
        let requests = client.request(1) + client.request(3)
        client.send(requests)
        XCTAssertEqual(
            client.send(frame(0, .unknown(type: .ping, flags: 0, bytes: [0, 0, 0, 0, 0, 0, 0]))),
            ["error FRAME_SIZE_ERROR PING length is not 8"])
        XCTAssertEqual(client.read(), ["GOAWAY 3 FRAME_SIZE_ERROR PING length is not 8"])
        XCTAssertTrue(client.connection.canClose)
    }

    func testIdleMeansNothingInFlight() {
        var client = HTTP2TestClient.connected()
        XCTAssertTrue(client.connection.isIdle)
        let request = client.request(1, method: "POST", endStream: false)
        client.send(request)
        XCTAssertFalse(client.connection.isIdle)
        XCTAssertEqual(client.connection.openStreamCount, 1)
        client.send(HTTP2TestClient.data(1, "x", endStream: true))
        client.connection.sendResponse(streamID: 1, head: noContent, body: [])
        XCTAssertFalse(client.connection.isIdle, "the response is not taken yet")
        _ = client.read()
        XCTAssertTrue(client.connection.isIdle)
    }

    func testPingFloodEndsTheConnection() {
        var client = HTTP2TestClient.connected(HTTP2Configuration(controlFrameBudget: 100))
        var bytes: [UInt8] = []
        for index in 0..<200 { bytes += frame(0, .ping(opaque: UInt64(index), ack: false)) }
        XCTAssertEqual(client.send(bytes), ["error ENHANCE_YOUR_CALM too many control frames"])
        XCTAssertEqual(client.read().last, "GOAWAY 0 ENHANCE_YOUR_CALM too many control frames")
    }

    func testControlFramesBetweenCompletedRequestsAreFine() {
        var client = HTTP2TestClient.connected(HTTP2Configuration(controlFrameBudget: 20))
        for index in 0..<100 {
            let id = UInt32(2 * index + 1)
            let request = client.request(id)
            let events = client.send(
                frame(0, .ping(opaque: 1, ack: false)) + request + frame(0, .settings([]))
                    + frame(id, .priority(HTTP2Priority())))
            XCTAssertEqual(events, ["request \(id) GET /"])
            client.connection.sendResponse(streamID: id, head: noContent, body: [])
            _ = client.read()
        }
    }

    func testWindowUpdatesAnsweringALongEventStreamAreFine() {
        var client = HTTP2TestClient.connected(HTTP2Configuration(controlFrameBudget: 20))
        let request = client.request(1, path: "/v1/stream")
        client.send(request)
        client.connection.sendHead(streamID: 1, head: HTTPResponseHead(status: 200), endStream: false)
        for index in 0..<200 {
            client.connection.sendData(streamID: 1, bytes: Array("id: \(index)\n\n".utf8), endStream: false)
            XCTAssertEqual(client.read().last?.hasPrefix("DATA 1 id: "), true)
            let events = client.send(
                frame(1, .windowUpdate(increment: 8)) + frame(0, .windowUpdate(increment: 8)))
            XCTAssertEqual(events, [], "event \(index)")
        }
    }

    func testEmptyDataFloodEndsTheConnection() {
        var client = HTTP2TestClient.connected(HTTP2Configuration(controlFrameBudget: 50))
        var bytes = client.request(1, method: "POST", endStream: false)
        for _ in 0..<100 { bytes += frame(1, .data(bytes: [], endStream: false)) }
        XCTAssertEqual(client.send(bytes), ["error ENHANCE_YOUR_CALM too many control frames"])
    }

    func testRapidResetEndsTheConnection() {
        var client = HTTP2TestClient.connected(HTTP2Configuration(streamResetBudget: 10))
        var events: [String] = []
        for index in 0..<20 where events.last?.hasPrefix("error") != true {
            let id = UInt32(2 * index + 1)
            let request = client.request(id)
            events += client.send(request + frame(id, .rstStream(.cancel)))
        }
        XCTAssertEqual(events.filter { $0.hasPrefix("request") }.count, 10)
        XCTAssertEqual(events.filter { $0.hasPrefix("reset") }.count, 10)
        XCTAssertEqual(events.last, "error ENHANCE_YOUR_CALM too many streams reset by the client")
    }

    func testOccasionalCancelsAreFine() {
        var client = HTTP2TestClient.connected(HTTP2Configuration(streamResetBudget: 3))
        for index in 0..<50 {
            let id = UInt32(4 * index + 1)
            let done = client.request(id)
            let cancelled = client.request(id + 2)
            let events = client.send(done + cancelled + frame(id + 2, .rstStream(.cancel)))
            XCTAssertEqual(events, ["request \(id) GET /", "request \(id + 2) GET /", "reset \(id + 2) CANCEL"])
            client.connection.sendResponse(streamID: id, head: noContent, body: [])
            _ = client.read()
        }
    }
}
