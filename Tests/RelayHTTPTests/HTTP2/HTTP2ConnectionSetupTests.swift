import RelayHTTP
import XCTest

/// Preface, SETTINGS, PING, GOAWAY and unknown frames (h2spec 3.5, 4.1, 5.5, 6.5, 6.7, 6.8).
final class HTTP2ConnectionSetupTests: XCTestCase {
    private let preface = HTTP2ServerConnection.clientPreface
    private func frame(_ id: UInt32, _ payload: HTTP2Frame.Payload) -> [UInt8] { HTTP2TestClient.frame(id, payload) }

    func testServerSettingsAreTheFirstOutput() {
        var client = HTTP2TestClient()
        XCTAssertEqual(client.read(), ["SETTINGS 3=128,4=1048576,5=16384,6=16384", "WINDOW_UPDATE 0 983041"])
    }

    func testPrefaceAndSettingsAreAcknowledged() {
        var client = HTTP2TestClient()
        _ = client.read()
        XCTAssertEqual(client.send(preface + frame(0, .settings([HTTP2Setting(.maxFrameSize, 20_000)]))), [])
        XCTAssertEqual(client.read(), ["SETTINGS ACK"])
    }

    func testPrefaceMayArriveOneByteAtATime() {
        var client = HTTP2TestClient()
        _ = client.read()
        for byte in preface + frame(0, .settings([])) {
            XCTAssertEqual(client.send([byte]), [])
        }
        XCTAssertEqual(client.read(), ["SETTINGS ACK"])
    }

    func testInvalidPrefaceIsAConnectionError() {
        var client = HTTP2TestClient()
        _ = client.read()
        XCTAssertEqual(
            client.send(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)),
            ["error PROTOCOL_ERROR invalid connection preface"])
        XCTAssertEqual(client.read(), ["GOAWAY 0 PROTOCOL_ERROR invalid connection preface"])
        XCTAssertTrue(client.connection.canClose)
        XCTAssertEqual(client.send(frame(0, .settings([]))), [], "nothing is read after a connection error")
    }

    func testPrefaceMustBeFollowedBySettings() {
        var client = HTTP2TestClient()
        _ = client.read()
        XCTAssertEqual(
            client.send(preface + frame(0, .ping(opaque: 1, ack: false))),
            ["error PROTOCOL_ERROR connection preface not followed by SETTINGS"])
    }

    func testSettingsAreValidated() {
        let cases: [([UInt8], String, UInt)] = [
            (
                frame(0, .unknown(type: .settings, flags: 1, bytes: [0, 0, 0, 0, 0, 0])),
                "error FRAME_SIZE_ERROR SETTINGS ACK with a payload", #line
            ),
            (frame(1, .settings([])), "error PROTOCOL_ERROR SETTINGS on a stream", #line),
            (
                frame(0, .unknown(type: .settings, flags: 0, bytes: [0, 3, 0])),
                "error FRAME_SIZE_ERROR SETTINGS length is not a multiple of 6", #line
            ),
            (
                frame(0, .settings([HTTP2Setting(.enablePush, 2)])),
                "error PROTOCOL_ERROR SETTINGS_ENABLE_PUSH is neither 0 nor 1", #line
            ),
            (
                frame(0, .settings([HTTP2Setting(.initialWindowSize, 1 << 31)])),
                "error FLOW_CONTROL_ERROR SETTINGS_INITIAL_WINDOW_SIZE above 2^31-1", #line
            ),
            (
                frame(0, .settings([HTTP2Setting(.maxFrameSize, 16_383)])),
                "error PROTOCOL_ERROR SETTINGS_MAX_FRAME_SIZE outside 2^14...2^24-1", #line
            ),
            (
                frame(0, .settings([HTTP2Setting(.maxFrameSize, 1 << 24)])),
                "error PROTOCOL_ERROR SETTINGS_MAX_FRAME_SIZE outside 2^14...2^24-1", #line
            ),
        ]
        for (bytes, expected, line) in cases {
            var client = HTTP2TestClient.connected()
            XCTAssertEqual(client.send(bytes), [expected], line: line)
            XCTAssertEqual(client.read().first?.hasPrefix("GOAWAY 0 "), true, line: line)
        }
    }

    func testUnknownSettingIsIgnoredAndAcknowledged() {
        var client = HTTP2TestClient.connected()
        XCTAssertEqual(client.send(frame(0, .settings([HTTP2Setting(.init(0xfe), 7)]))), [])
        XCTAssertEqual(client.read(), ["SETTINGS ACK"])
    }

    func testPingIsEchoedAndPingAckIsNot() {
        var client = HTTP2TestClient.connected()
        client.send(frame(0, .ping(opaque: 0x1122_3344_5566_7788, ack: false)))
        client.send(frame(0, .ping(opaque: 9, ack: true)))
        XCTAssertEqual(client.read(), ["PING \(0x1122_3344_5566_7788) ACK"])
    }

    func testMalformedPingIsAConnectionError() {
        var client = HTTP2TestClient.connected()
        XCTAssertEqual(
            client.send(frame(0, .unknown(type: .ping, flags: 0, bytes: [1, 2, 3, 4, 5, 6]))),
            ["error FRAME_SIZE_ERROR PING length is not 8"])
        client = HTTP2TestClient.connected()
        XCTAssertEqual(client.send(frame(3, .ping(opaque: 0, ack: false))), ["error PROTOCOL_ERROR PING on a stream"])
    }

    func testGoawayFromClientIsReported() {
        var client = HTTP2TestClient.connected()
        XCTAssertEqual(
            client.send(frame(0, .goaway(lastStreamID: 0, code: .noError, debugData: Array("bye".utf8)))),
            ["goaway 0 NO_ERROR bye"])
        XCTAssertTrue(client.connection.canClose)
        XCTAssertEqual(
            HTTP2TestClient.connected().connection.canClose, false, "an open connection without GOAWAY stays open")
    }

    func testGoawayOnAStreamIsAConnectionError() {
        var client = HTTP2TestClient.connected()
        XCTAssertEqual(
            client.send(frame(1, .goaway(lastStreamID: 0, code: .noError, debugData: []))),
            ["error PROTOCOL_ERROR GOAWAY on a stream"])
    }

    func testUnknownFrameTypesAreIgnored() {
        var client = HTTP2TestClient.connected()
        XCTAssertEqual(client.send(frame(0, .unknown(type: .init(0x16), flags: 0xff, bytes: [1, 2, 3]))), [])
        client.send(frame(0, .ping(opaque: 5, ack: false)))
        XCTAssertEqual(client.read(), ["PING 5 ACK"])
    }

    func testPushPromiseFromClientIsAConnectionError() {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(1, endStream: false)
        client.send(bytes)
        XCTAssertEqual(
            client.send(frame(1, .pushPromise(promisedStreamID: 2, fragment: [0x82], endHeaders: true))),
            ["error PROTOCOL_ERROR PUSH_PROMISE from a client"])
    }

    func testOversizedFrameIsAConnectionError() {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(1, method: "POST", endStream: false)
        client.send(bytes)
        XCTAssertEqual(
            client.send(frame(1, .data(bytes: Array(repeating: 0x61, count: 16_385), endStream: true))),
            ["error FRAME_SIZE_ERROR frame longer than SETTINGS_MAX_FRAME_SIZE"])
    }

    func testMaximumSizeFrameIsAccepted() {
        var client = HTTP2TestClient.connected(HTTP2Configuration(maxRequestBodyBytes: 20_000))
        let bytes = client.request(1, method: "POST", endStream: false)
        client.send(bytes)
        let body = String(repeating: "a", count: 16_384)
        XCTAssertEqual(client.send(HTTP2TestClient.data(1, body, endStream: true)), ["request 1 POST / body=\(body)"])
    }

    func testSettingsWindowUpdateAndPingAreAcceptedBetweenRequests() {
        var client = HTTP2TestClient.connected()
        let bytes = client.request(1)
        XCTAssertEqual(
            client.send(frame(0, .windowUpdate(increment: 100)) + bytes + frame(0, .settings([]))),
            ["request 1 GET /"])
        XCTAssertEqual(client.read(), ["SETTINGS ACK"])
    }
}
