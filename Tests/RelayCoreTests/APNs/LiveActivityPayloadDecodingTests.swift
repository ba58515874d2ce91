import RelayJSON
import XCTest

@testable import RelayCore

/// `checkBody(_:)` reads the usual payload shape member by member; it must answer exactly as the
/// general path (`checkBody(_:parseJSON:)` with `JSONValue(parsing:)`) for every body.
final class LiveActivityPayloadDecodingTests: XCTestCase {
    private func general(_ body: [UInt8]) -> Result<LiveActivityPayload, APNsError> {
        LiveActivityPushRequest.checkBody(body) { try JSONValue(parsing: $0) }
    }

    private func assertSameAnswer(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        let body = Array(text.utf8)
        let fast = LiveActivityPushRequest.checkBody(body)
        let slow = general(body)
        switch (fast, slow) {
        case (.success(let left), .success(let right)):
            XCTAssertEqual(left, right, text, file: file, line: line)
        case (.failure(let left), .failure(let right)):
            XCTAssertEqual(left, right, text, file: file, line: line)
        default:
            XCTFail("fast \(fast) but general \(slow) for \(text)", file: file, line: line)
        }
    }

    /// Bodies in the usual shape, bodies that leave it, and bodies that are refused; one per row.
    func testEveryBodyGetsTheGeneralAnswer() {
        let bodies = [
            // The usual shape, with every ActivityKit key, custom keys, others inside aps.
            #"{"aps":{"event":"update","timestamp":1700000000,"content-state":{"score":1}}}"#,
            #"{"aps":{"timestamp":1700000000,"event":"end","dismissal-date":1700000600,"content-state":{}},"x":[1,2]}"#,
            #"{"gameId":"42","aps":{"event":"start","timestamp":1,"content-state":{"a":"b"},"attributes-type":"T","#
                + #""attributes":{"h":"A"},"alert":{"title":"t","body":{"loc-key":"K","loc-args":["a"]}},"#
                + #""relevance-score":75.5,"stale-date":2,"input-push-token":1,"input-push-channel":"c2hhbm5lbA=="}}"#,
            #"{"aps":{"event":"update","timestamp":1,"content-state":{"s":1},"sound":"x","badge":1}}"#,
            "  {\n \"aps\" : { \"event\" : \"update\" ,\t\"timestamp\" : 1 , \"content-state\" : { \"s\" : 1 } } }\n",
            #"{"aps":{"event":"update","timestamp":1,"content-state":{"s":1}},"aps2":{},"caf\u00e9":1,"é":2}"#,
            #"{"aps":{"event":"update","timestamp":1700000000000,"content-state":{"s":1},"attributes":{}}}"#,
            #"{"aps":{"event":"update","content-state":null,"timestamp":null,"alert":null}}"#,
            #"{"aps":{"event":"bogus","timestamp":1}}"#,
            // Content states of every shape: the shape's fingerprint is part of the payload.
            #"{"aps":{"event":"update","timestamp":1,"content-state":{"a":1,"a":"x","b":[{"c":1,"c":[]}]}}}"#,
            #"{"aps":{"event":"update","timestamp":1,"content-state":{"\u0061":1,"caf\u00e9":[[]],"é":{}}}}"#,
            #"{"aps":{"event":"update","timestamp":1,"content-state":{"a":"#
                + String(repeating: "{\"b\":[", count: 12) + "1" + String(repeating: "]}", count: 12) + "}}}",
            // Leave the usual shape: repeated keys, escaped keys, no aps, other types.
            #"{"aps":{"event":"update","timestamp":1},"aps":{"event":"end","timestamp":2}}"#,
            #"{"aps":{"event":"update","event":"end","timestamp":1,"content-state":{}}}"#,
            #"{"aps":{"event":"update","timestamp":1,"content-state":{},"x":1,"x":2}}"#,
            #"{"x":1,"aps":{"event":"update","timestamp":1,"content-state":{}},"x":2}"#,
            #"{"\u0061ps":{"event":"update","timestamp":1,"content-state":{}}}"#,
            #"{"aps":{"ev\u0065nt":"update","timestamp":1,"content-state":{}}}"#,
            #"{"aps":{"event":"update","timestamp":1,"content-\u0073tate":{"s":1}}}"#,
            // A repeated key inside aps, then a nested "aps" whose closing brace ends the outer one:
            // the top-level object is never closed (found by fuzz/, target apns).
            #"{"aps":{"event":"update","event":"update","aps":{"event":"update","timestamp":1}}"#,
            #"{"aps":{"x":1,"x":2,"aps":{"event":"update","timestamp":1,"content-state":{}}}}"#,
            #"{"aps":{"ev\u0065nt":"update","aps":{"event":"update","timestamp":1}}"#,
            #"{}"#, #"{"x":1}"#, #"{"aps":1}"#, #"{"aps":[]}"#, #"{"aps":{}}"#, #"{"aps":{},"y":2}"#,
            #"[]"#, #""aps""#, #"1"#, #"null"#,
            // Refused: wrong types, bad JSON anywhere, trailing data, depth.
            #"{"aps":{"event":1,"timestamp":1}}"#, #"{"aps":{"timestamp":"1","event":"update"}}"#,
            #"{"aps":{"event":"update","timestamp":1,"content-state":[1]}}"#,
            #"{"aps":{"event":"update","timestamp":1,"input-push-token":2}}"#,
            #"{"aps":{"event":"update","timestamp":1,"alert":5}}"#,
            #"{"aps":{"event":"update","timestamp":1,"content-state":{"s":1}}"#,
            #"{"aps":{"event":"update","timestamp":1,"content-state":{"s":1}}} x"#,
            #"{"aps":{"event":"update","timestamp":1,}}"#, #"{"aps":{"event":"update" "timestamp":1}}"#,
            #"{"aps" {"event":"update"}}"#, #"{"aps":{"event":"upd\u00"}}"#, #"{"aps":{"event":"a\#u{01}b"}}"#,
            #"{"aps":{"event":"update","timestamp":01}}"#, "{\"aps\":{\"event\":\"\u{FF}\"}}",
            #"{"aps":{"event":"update","timestamp":1,"content-state":"#
                + String(repeating: "[", count: 70) + String(repeating: "]", count: 70) + "}}",
            #"{"aps":{"event":"update","timestamp":1,"content-state":{"a":"#
                + String(repeating: "{\"b\":", count: 61) + "1" + String(repeating: "}", count: 61) + "}}}",
            #"{"aps":{"event":"update","timestamp":1,"content-state":{"a":"#
                + String(repeating: "{\"b\":", count: 62) + "1" + String(repeating: "}", count: 62) + "}}}",
            "", " ", "{", #"{"aps":"#, #"{"aps":{"#, #"{"aps":{"event""#,
        ]
        for body in bodies { assertSameAnswer(body) }
    }

    /// The fast reading takes the usual shape and hands everything else to the general path.
    func testUsualShapeIsReadMemberByMember() {
        func fast(_ text: String) -> Bool {
            Array(text.utf8).withUnsafeBufferPointer { LiveActivityPayload.decodeCommonShape($0) } != nil
        }
        XCTAssertTrue(fast(#"{"aps":{"event":"update","timestamp":1,"content-state":{"s":1}},"x":1}"#))
        XCTAssertTrue(fast(" {\n\"aps\" : {\"event\":\"end\", \"badge\": 1}}\n"))
        XCTAssertTrue(fast(#"{"aps":{"event":1}}"#))  // refused, but read here
        for other in [
            #"{"aps":{},"aps":{}}"#, #"{"aps":{"event":"a","event":"b"}}"#, #"{"\u0061ps":{}}"#, #"{"x":1}"#,
            #"{"aps":1}"#, #"[]"#, #"{"aps":{"event":"a"}} x"#, #"{"aps":{"event":"a",}}"#,
            #"{"aps":{"event":"a","event":"b","aps":{"event":"c"}}"#,
        ] {
            XCTAssertFalse(fast(other), other)
        }
    }

    /// Invalid UTF-8 in a key: the general path's error, whether the key is an ActivityKit key or not.
    func testInvalidUTF8InKeysGetsTheGeneralAnswer() {
        for key in [[0x61, 0xFF, 0x62], [0xC3], [0xED, 0xA0, 0x80]] as [[UInt8]] {
            var top = Array(#"{"aps":{"event":"update","timestamp":1},""#.utf8)
            top += key + Array(#"":1}"#.utf8)
            XCTAssertEqual(
                try? LiveActivityPushRequest.checkBody(top).get(), try? general(top).get(), "\(key)")
            if case .success = LiveActivityPushRequest.checkBody(top) { XCTFail("accepted invalid UTF-8 \(key)") }
        }
    }

    /// Random pushes of the shapes apps send, with whitespace sprinkled in and keys shuffled.
    func testGeneratedPayloadsDecodeAlike() throws {
        var random = SystemRandomNumberGenerator()
        let keys = ["event", "timestamp", "content-state", "stale-date", "relevance-score", "alert", "sound"]
        for round in 0..<300 {
            var aps: [(String, String)] = []
            for key in keys.shuffled(using: &random) where Bool.random(using: &random) || key == "event" {
                let value: String
                switch key {
                case "event": value = ["\"update\"", "\"end\"", "\"start\""].randomElement(using: &random)!
                case "content-state": value = #"{"n":\#(round),"s":"text \#(round)","f":\#(Double(round) / 7)}"#
                case "alert": value = #"{"title":"T","body":"B \u00e9"}"#
                case "sound": value = "\"ping\""
                default: value = String(Int.random(in: 0...2_000_000_000, using: &random))
                }
                aps.append((key, value))
            }
            let space = [" ", "", "\n", "\t "]
            func gap() -> String { space.randomElement(using: &random)! }
            let members = aps.map { "\(gap())\"\($0.0)\"\(gap()):\(gap())\($0.1)\(gap())" }.joined(separator: ",")
            var top = ["\"aps\":{\(members)}"]
            if Bool.random(using: &random) { top.append("\"custom\":{\"id\":\(round)}") }
            top.shuffle(using: &random)
            assertSameAnswer("\(gap()){" + top.joined(separator: ",\(gap())") + "}\(gap())")
        }
    }

    /// The push log writes a JSON body's bytes without whitespace between tokens; the value is the same.
    func testLoggedBytesAreCompactAndEquivalent() throws {
        let text =
            "{ \"aps\" :\n{\"event\" : \"update\", \"content-state\": {\"s\": \"a b\\\" c\\\\\", \"t\" :[1, 2 ]}}}\r\n"
        let payload = PushPayload.json(Array(text.utf8))
        var out = JSONOutput()
        payload.write(to: &out)
        let written = String(decoding: out.bytes(), as: UTF8.self)
        XCTAssertEqual(written, #"{"aps":{"event":"update","content-state":{"s":"a b\" c\\","t":[1,2]}}}"#)
        XCTAssertEqual(try JSONValue(parsing: written), payload.value)
        XCTAssertEqual(payload, .value(try JSONValue(parsing: text)))
    }
}
