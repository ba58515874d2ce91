import RelayHTTP
import XCTest

/// Every GOAWAY and RST_STREAM the connection sends or receives is tallied with its code, once,
/// for the shell's metrics.
final class HTTP2ControlFrameTallyTests: XCTestCase {
    private typealias Entry = HTTP2ControlFrameTally.Entry

    func testResetsAndGoawaysBothWaysAreTalliedOnce() {
        var client = HTTP2TestClient.connected()
        XCTAssertEqual(client.connection.takeControlFrames(), [])
        let first = client.request(1, endStream: false)
        client.send(first)
        client.send(HTTP2TestClient.frame(1, .rstStream(.cancel)))
        XCTAssertEqual(client.connection.takeControlFrames(), [Entry(isReset: true, sent: false, code: .cancel)])
        XCTAssertEqual(client.connection.takeControlFrames(), [], "taken once")

        let second = client.request(3, endStream: false)
        client.send(second)
        client.connection.resetStream(streamID: 3, code: .refusedStream)
        client.send(HTTP2TestClient.frame(0, .goaway(lastStreamID: 0, code: .noError, debugData: [])))
        client.connection.sendGoaway(code: .enhanceYourCalm)
        XCTAssertEqual(
            client.connection.takeControlFrames(),
            [
                Entry(isReset: true, sent: true, code: .refusedStream),
                Entry(isReset: false, sent: false, code: .noError),
                Entry(isReset: false, sent: true, code: .enhanceYourCalm),
            ])
    }

    func testAConnectionErrorTalliesItsGoaway() {
        var client = HTTP2TestClient.connected()
        client.send(HTTP2TestClient.data(1, "x"))
        XCTAssertEqual(client.connection.takeControlFrames(), [Entry(isReset: false, sent: true, code: .protocolError)])
    }
}
