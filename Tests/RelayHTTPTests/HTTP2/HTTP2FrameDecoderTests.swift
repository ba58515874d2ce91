import RelayHTTP
import XCTest

final class HTTP2FrameDecoderTests: XCTestCase {
    private func decode(_ bytes: [UInt8], maxFrameSize: Int = 16_384) throws -> HTTP2Frame? {
        var decoder = HTTP2FrameDecoder(maxFrameSize: maxFrameSize)
        decoder.append(bytes)
        return try decoder.nextFrame()
    }

    private func decodeError(_ bytes: [UInt8]) -> HTTP2ProtocolError? {
        do {
            _ = try decode(bytes)
            return nil
        } catch {
            return error as? HTTP2ProtocolError
        }
    }

    func testDataFrameWithPadding() throws {
        let frame = try decode([
            0x00, 0x00, 0x07,  // length 7
            0x00,  // type DATA
            0x09,  // flags END_STREAM | PADDED
            0x00, 0x00, 0x00, 0x03,  // stream 3
            0x02,  // pad length 2
            0x61, 0x62, 0x63, 0x64,  // "abcd"
            0x00, 0x00,  // padding
        ])
        XCTAssertEqual(
            frame, HTTP2Frame(streamID: 3, payload: .data(bytes: Array("abcd".utf8), endStream: true, padding: 2)))
        XCTAssertEqual(frame?.flowControlledLength, 7)
    }

    func testHeadersFrameWithPriorityAndPadding() throws {
        let frame = try decode([
            0x00, 0x00, 0x0a,  // length 10
            0x01,  // type HEADERS
            0x2c,  // flags END_HEADERS | PADDED | PRIORITY
            0x00, 0x00, 0x00, 0x01,  // stream 1
            0x01,  // pad length 1
            0x80, 0x00, 0x00, 0x03,  // exclusive, depends on stream 3
            0x0f,  // weight 16
            0x82, 0x86, 0x84,  // field block fragment
            0x00,  // padding
        ])
        XCTAssertEqual(
            frame,
            HTTP2Frame(
                streamID: 1,
                payload: .headers(
                    fragment: [0x82, 0x86, 0x84], endStream: false, endHeaders: true,
                    priority: HTTP2Priority(exclusive: true, dependency: 3, weight: 15), padding: 1)))
    }

    func testSettingsFrameKeepsUnknownIdentifiers() throws {
        let frame = try decode([
            0x00, 0x00, 0x0c,  // length 12
            0x04,  // type SETTINGS
            0x00,  // no flags
            0x00, 0x00, 0x00, 0x00,  // stream 0
            0x00, 0x04, 0x00, 0x00, 0xff, 0xff,  // SETTINGS_INITIAL_WINDOW_SIZE 65535
            0x00, 0xff, 0x00, 0x00, 0x00, 0x01,  // unknown identifier 0xff = 1
        ])
        XCTAssertEqual(
            frame,
            HTTP2Frame(
                streamID: 0,
                payload: .settings([HTTP2Setting(.initialWindowSize, 65_535), HTTP2Setting(.init(0xff), 1)])))
    }

    func testPingGoawayWindowUpdateRstStream() throws {
        XCTAssertEqual(
            try decode([
                0x00, 0x00, 0x08, 0x06, 0x01, 0x00, 0x00, 0x00, 0x00,  // PING, ACK, stream 0
                0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,  // opaque data
            ]), HTTP2Frame(streamID: 0, payload: .ping(opaque: 0x0102_0304_0506_0708, ack: true)))
        XCTAssertEqual(
            try decode([
                0x00, 0x00, 0x0a, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00,  // GOAWAY, length 10, stream 0
                0x80, 0x00, 0x00, 0x05,  // reserved bit set, last stream 5
                0x00, 0x00, 0x00, 0x0b,  // ENHANCE_YOUR_CALM
                0x68, 0x69,  // debug "hi"
            ]),
            HTTP2Frame(streamID: 0, payload: .goaway(lastStreamID: 5, code: .enhanceYourCalm, debugData: [0x68, 0x69])))
        XCTAssertEqual(
            try decode([
                0x00, 0x00, 0x04, 0x08, 0x00, 0x80, 0x00, 0x00, 0x01,  // WINDOW_UPDATE, reserved bit, stream 1
                0x00, 0x00, 0x10, 0x00,  // increment 4096
            ]), HTTP2Frame(streamID: 1, payload: .windowUpdate(increment: 4096)))
        XCTAssertEqual(
            try decode([
                0x00, 0x00, 0x04, 0x03, 0x00, 0x00, 0x00, 0x00, 0x07,  // RST_STREAM, stream 7
                0x00, 0x00, 0x01, 0x00,  // unknown code 0x100
            ]), HTTP2Frame(streamID: 7, payload: .rstStream(HTTP2ErrorCode(0x100))))
    }

    func testUnknownFrameTypeIsReturnedForIgnoring() throws {
        let frame = try decode([
            0x00, 0x00, 0x02,  // length 2
            0xfa,  // type 0xfa
            0xff,  // every flag
            0x00, 0x00, 0x00, 0x01,  // stream 1
            0xaa, 0xbb,
        ])
        XCTAssertEqual(
            frame, HTTP2Frame(streamID: 1, payload: .unknown(type: .init(0xfa), flags: 0xff, bytes: [0xaa, 0xbb])))
    }

    func testNeedsMoreBytesUntilFrameIsComplete() throws {
        let bytes: [UInt8] = [0x00, 0x00, 0x08, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 1, 2, 3, 4, 5, 6, 7, 8]
        var decoder = HTTP2FrameDecoder()
        for byte in bytes.dropLast() {
            decoder.append([byte])
            XCTAssertNil(try decoder.nextFrame())
        }
        decoder.append([bytes.last!])
        XCTAssertEqual(try decoder.nextFrame()?.type, .ping)
        XCTAssertEqual(decoder.bufferedByteCount, 0)
    }

    func testOversizedFrameFailsOnItsHeaderAlone() {
        var decoder = HTTP2FrameDecoder(maxFrameSize: 16_384)
        decoder.append([0x00, 0x40, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01])  // DATA of 16385 bytes
        XCTAssertThrowsError(try decoder.nextFrame()) { error in
            XCTAssertEqual(
                error as? HTTP2ProtocolError,
                .connection(.frameSizeError, "frame longer than SETTINGS_MAX_FRAME_SIZE", value: 16_385))
        }
    }

    func testStreamErrorsLeaveTheDecoderUsable() throws {
        var decoder = HTTP2FrameDecoder()
        decoder.append([
            0x00, 0x00, 0x04, 0x02, 0x00, 0x00, 0x00, 0x00, 0x03, 0, 0, 0, 0,  // PRIORITY of 4 bytes on stream 3
            0x00, 0x00, 0x08, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,  // PING
        ])
        XCTAssertThrowsError(try decoder.nextFrame()) { error in
            XCTAssertEqual((error as? HTTP2ProtocolError)?.scope, .stream(3))
        }
        XCTAssertEqual(try decoder.nextFrame()?.type, .ping)
    }

    func testMalformedFramesCarryCodeAndScope() {
        let cases: [(String, [UInt8], HTTP2ErrorCode, HTTP2ProtocolError.Scope)] = [
            ("DATA on stream 0", [0, 0, 0, 0x00, 0, 0, 0, 0, 0], .protocolError, .connection),
            ("HEADERS on stream 0", [0, 0, 0, 0x01, 4, 0, 0, 0, 0], .protocolError, .connection),
            ("pad 1, nothing left", [0, 0, 1, 0x00, 8, 0, 0, 0, 1, 1], .protocolError, .connection),
            ("PADDED, no pad byte", [0, 0, 0, 0x00, 8, 0, 0, 0, 1], .frameSizeError, .connection),
            ("short priority", [0, 0, 4, 0x01, 0x24, 0, 0, 0, 1, 0, 0, 0, 0], .frameSizeError, .connection),
            (
                "padding eats priority", [0, 0, 6, 0x01, 0x2c, 0, 0, 0, 1, 1, 0, 0, 0, 3, 15], .protocolError,
                .connection
            ),
            ("PRIORITY stream 0", [0, 0, 5, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 1, 15], .protocolError, .connection),
            ("PRIORITY 6 bytes", [0, 0, 6, 0x02, 0, 0, 0, 0, 1, 0, 0, 0, 3, 15, 0], .frameSizeError, .stream(1)),
            ("RST_STREAM stream 0", [0, 0, 4, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 8], .protocolError, .connection),
            ("RST_STREAM 3 bytes", [0, 0, 3, 0x03, 0, 0, 0, 0, 1, 0, 0, 8], .frameSizeError, .connection),
            ("SETTINGS on stream 1", [0, 0, 0, 0x04, 0, 0, 0, 0, 1], .protocolError, .connection),
            ("ACK w/ payload", [0, 0, 6, 0x04, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0], .frameSizeError, .connection),
            ("3-byte SETTINGS", [0, 0, 3, 0x04, 0, 0, 0, 0, 0, 0, 1, 0], .frameSizeError, .connection),
            ("ENABLE_PUSH 2", [0, 0, 6, 0x04, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 2], .protocolError, .connection),
            ("window 2^31", [0, 0, 6, 0x04, 0, 0, 0, 0, 0, 0, 4, 0x80, 0, 0, 0], .flowControlError, .connection),
            ("frame 16383", [0, 0, 6, 0x04, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0x3f, 0xff], .protocolError, .connection),
            ("frame 2^24", [0, 0, 6, 0x04, 0, 0, 0, 0, 0, 0, 5, 1, 0, 0, 0], .protocolError, .connection),
            ("PING stream 1", [0, 0, 8, 0x06, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0], .protocolError, .connection),
            ("PING 7 bytes", [0, 0, 7, 0x06, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], .frameSizeError, .connection),
            ("GOAWAY stream 1", [0, 0, 8, 0x07, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0], .protocolError, .connection),
            ("GOAWAY 7 bytes", [0, 0, 7, 0x07, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], .frameSizeError, .connection),
            ("increment 0 on conn", [0, 0, 4, 0x08, 0, 0, 0, 0, 0, 0, 0, 0, 0], .protocolError, .connection),
            ("increment 0 on stream", [0, 0, 4, 0x08, 0, 0, 0, 0, 5, 0, 0, 0, 0], .protocolError, .stream(5)),
            ("WINDOW_UPDATE 3 bytes", [0, 0, 3, 0x08, 0, 0, 0, 0, 5, 0, 0, 1], .frameSizeError, .connection),
            ("CONTINUATION stream 0", [0, 0, 0, 0x09, 4, 0, 0, 0, 0], .protocolError, .connection),
            ("short PUSH_PROMISE", [0, 0, 3, 0x05, 4, 0, 0, 0, 1, 0, 0, 2], .frameSizeError, .connection),
        ]
        for (name, bytes, code, scope) in cases {
            let error = decodeError(bytes)
            XCTAssertEqual(error?.code, code, "\(name): \(error.map { "\($0)" } ?? "no error")")
            XCTAssertEqual(error?.scope, scope, name)
        }
    }

    func testErrorDescriptionNamesCodeStreamAndValue() {
        let error = HTTP2ProtocolError.stream(3, .frameSizeError, "PRIORITY length is not 5", value: 6)
        XCTAssertEqual(error.description, "FRAME_SIZE_ERROR on stream 3: PRIORITY length is not 5 (6)")
        XCTAssertEqual(HTTP2ErrorCode(0x42).description, "0x42")
        XCTAssertEqual(HTTP2FrameType(0xfa).description, "0xfa")
    }
}
