import RelayHTTP
import XCTest

final class HTTP2FrameEncoderTests: XCTestCase {
    func testSettingsFrameBytes() {
        let frame = HTTP2Frame(
            streamID: 0,
            payload: .settings([HTTP2Setting(.maxConcurrentStreams, 100), HTTP2Setting(.maxFrameSize, 16_384)]))
        XCTAssertEqual(
            frame.encoded,
            [
                0x00, 0x00, 0x0c,  // length 12
                0x04,  // SETTINGS
                0x00,  // no flags
                0x00, 0x00, 0x00, 0x00,  // stream 0
                0x00, 0x03, 0x00, 0x00, 0x00, 0x64,  // MAX_CONCURRENT_STREAMS 100
                0x00, 0x05, 0x00, 0x00, 0x40, 0x00,  // MAX_FRAME_SIZE 16384
            ])
    }

    func testPaddedDataFrameBytes() {
        let frame = HTTP2Frame(streamID: 1, payload: .data(bytes: [0x41], endStream: true, padding: 2))
        XCTAssertEqual(
            frame.encoded,
            [
                0x00, 0x00, 0x04,  // length: pad length byte + 1 data byte + 2 padding
                0x00,  // DATA
                0x09,  // END_STREAM | PADDED
                0x00, 0x00, 0x00, 0x01,  // stream 1
                0x02,  // pad length
                0x41,  // "A"
                0x00, 0x00,  // padding
            ])
    }

    func testEveryFrameTypeRoundTrips() throws {
        let frames: [HTTP2Frame] = [
            HTTP2Frame(streamID: 1, payload: .data(bytes: [1, 2, 3], endStream: false)),
            HTTP2Frame(streamID: 1, payload: .data(bytes: [], endStream: true, padding: 0)),
            HTTP2Frame(streamID: 3, payload: .headers(fragment: [0x82], endStream: true, endHeaders: false)),
            HTTP2Frame(
                streamID: 3,
                payload: .headers(
                    fragment: [0x82, 0x84], endStream: false, endHeaders: true,
                    priority: HTTP2Priority(exclusive: false, dependency: 1, weight: 200), padding: 4)),
            HTTP2Frame(streamID: 5, payload: .priority(HTTP2Priority(exclusive: true, dependency: 3, weight: 0))),
            HTTP2Frame(streamID: 5, payload: .rstStream(.cancel)),
            HTTP2Frame(streamID: 0, payload: .settings([])),
            HTTP2Frame(streamID: 0, payload: .settingsAck),
            HTTP2Frame(streamID: 1, payload: .pushPromise(promisedStreamID: 2, fragment: [0x82], endHeaders: true)),
            HTTP2Frame(streamID: 0, payload: .ping(opaque: 0xdead_beef, ack: false)),
            HTTP2Frame(streamID: 0, payload: .goaway(lastStreamID: 7, code: .init(0xabc), debugData: Array("x".utf8))),
            HTTP2Frame(streamID: 0, payload: .windowUpdate(increment: 0x7fff_ffff)),
            HTTP2Frame(streamID: 3, payload: .continuation(fragment: [0x84], endHeaders: true)),
            HTTP2Frame(streamID: 9, payload: .unknown(type: .init(0x20), flags: 0x3, bytes: [9])),
        ]
        var wire: [UInt8] = []
        for frame in frames { frame.encode(into: &wire) }
        var decoder = HTTP2FrameDecoder()
        decoder.append(wire)
        for frame in frames {
            XCTAssertEqual(try decoder.nextFrame(), frame)
        }
        XCTAssertNil(try decoder.nextFrame())
    }
}
