import RelayJSON
import XCTest

@testable import RelayCore

/// A push's content state, read member by member from the body as the provider API reads it,
/// reads, writes, compares and measures exactly as the same object parsed whole.
final class ContentStateReadingTests: XCTestCase {
    /// The content state of a push whose `aps` carries `contentState` (JSON text), as the provider
    /// API reads it, and the same object parsed into values.
    private func read(_ contentState: String, file: StaticString = #filePath, line: UInt = #line) throws -> (
        payload: LiveActivityPayload, values: JSONObject
    ) {
        let body = Array(#"{"aps":{"event":"update","timestamp":1,"content-state":\#(contentState)}}"#.utf8)
        let payload = try LiveActivityPayload.decode(body).get()
        let values = try XCTUnwrap(JSONValue(parsing: Array(contentState.utf8)).objectValue, file: file, line: line)
        return (payload, values)
    }

    /// Everything a reader can see of the object is the same as for the values, and the payload's
    /// measures of it are those of the values.
    private func assertSameObject(
        _ payload: LiveActivityPayload, _ values: JSONObject, _ text: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let object = try XCTUnwrap(payload.contentState, text, file: file, line: line)
        XCTAssertEqual(object, values, text, file: file, line: line)
        XCTAssertEqual(values, object, text, file: file, line: line)
        XCTAssertEqual(
            JSONValue.object(object).serialized(), JSONValue.object(values).serialized(), text, file: file, line: line)
        XCTAssertEqual(Array(object.keys), Array(values.keys), text, file: file, line: line)
        XCTAssertEqual(object.count, values.count, text, file: file, line: line)
        for (key, value) in values { XCTAssertEqual(object[key], value, "\(text) \(key)", file: file, line: line) }
        XCTAssertEqual(
            payload.contentStateShape, ContentStateShape.fingerprint(of: .object(values)), text, file: file, line: line)
        XCTAssertEqual(
            payload.contentStateBytes, ActivityDataSize.bytes(of: .object(values)), text, file: file, line: line)
        XCTAssertEqual(
            payload.contentStateBytes, JSONValue.object(values).serialized().count, text, file: file, line: line)
        var left = Hasher()
        var right = Hasher()
        left.combine(object)
        right.combine(values)
        XCTAssertEqual(left.finalize(), right.finalize(), text, file: file, line: line)
    }

    func testCompactContentStatesReadAsTheirValues() throws {
        let canonical = [
            "{}", #"{"a":1}"#, #"{"eta":-42,"status":"on the way","zone":null}"#,
            #"{"A":true,"B":false,"a":0,"ab":[],"b":{}}"#,
            #"{"away":3,"clock":"14:10","home":7,"lastPlay":"Play 12: pass complete for 5 yards","period":2}"#,
            #"{"eta":1700000600,"phase":"enRoute","progress":0.505}"#,
            #"{"big":999999999999999999,"d":1.5,"e":1e-05,"f":1e+16,"g":-0.25,"g1":1234567890123456789,"g2":-9223372036854775808,"h":0.0,"i":123456.789}"#,
            #"{"list":[1,"two",[3.5],{"k":"v"}],"nested":{"a":{"b":{"c":[{"d":null}]}}}}"#,
            #"{"chars":" !#$%&'()*+,-./09:;<=>?@AZ[]^_`az{|}~\#u{7F}"}"#,
            // Whitespace between tokens, not inside strings: still canonical once removed.
            " {\n \"a\" : [ 1 , 2 ] ,\t\"b\" : { \"c\" : \"x  y\" } } ",
        ]
        for text in canonical {
            let (payload, values) = try read(text)
            try assertSameObject(payload, values, text)
        }
    }

    /// Anything the serializer would write otherwise (keys out of order or repeated, escapes,
    /// non-ASCII text, numbers in another spelling) reads as its values too.
    func testOtherContentStatesReadAsTheirValues() throws {
        let others = [
            #"{"b":1,"a":2}"#, #"{"a":1,"a":2}"#, #"{"a\u0062":1}"#, #"{"a":"\n"}"#, #"{"a":"\/"}"#,
            #"{"café":1}"#, #"{"a":"é"}"#, #"{"a":"\u2028"}"#, #"{"a":-0}"#, #"{"a":-0.0}"#, #"{"a":1.50}"#,
            #"{"a":1E2}"#, #"{"a":1e2}"#, #"{"a":100.0e0}"#,
            #"{"a":99999999999999999999}"#, #"{"a":0.1000}"#, #"{"a":{"y":1,"x":2}}"#, #"{"a":[{"b":1,"b":1}]}"#,
            #"{"a":[1,"x\"y"]}"#,
        ]
        for text in others {
            let (payload, values) = try read(text)
            try assertSameObject(payload, values, text)
        }
    }

    /// Bad JSON inside a content state that starts out well gets the general parser's own error.
    func testBadJSONInsideAContentStateGetsTheParsersError() {
        for text in [#"{"a":1,"b":}"#, #"{"a":1,"b":01}"#, #"{"a":[1,2}"#, #"{"a":1"#, #"{"a":tru}"#] {
            let body = Array(#"{"aps":{"event":"update","timestamp":1,"content-state":\#(text)}}"#.utf8)
            let general = LiveActivityPushRequest.checkBody(body) { try JSONValue(parsing: $0) }
            guard case .failure(let expected) = general else { return XCTFail("accepted \(text)") }
            guard case .failure(let error) = LiveActivityPushRequest.checkBody(body) else {
                return XCTFail("accepted \(text)")
            }
            XCTAssertEqual(error, expected, text)
        }
    }

    /// Generated objects, written by the serializer, read back as the same values.
    func testGeneratedObjectsReadAsTheirValues() throws {
        var random = SystemRandomNumberGenerator()
        func scalar() -> JSONValue {
            switch Int.random(in: 0..<6, using: &random) {
            case 0: return .int(Int64.random(in: -1_000_000_000_000...1_000_000_000_000, using: &random))
            case 1: return .double(Double(Int.random(in: -100_000...100_000, using: &random)) / 1000)
            case 2: return .double(Double.random(in: -1e20...1e20, using: &random))
            case 3:
                return .string(
                    ["", "a b", "x-y_z", "Play 7: a \"quote\"", "é", "line\nbreak"].randomElement(using: &random)!)
            case 4: return .bool(Bool.random(using: &random))
            default: return .null
            }
        }
        func value(depth: Int) -> JSONValue {
            guard depth < 3, Int.random(in: 0..<4, using: &random) == 0 else { return scalar() }
            if Bool.random(using: &random) {
                return .array((0..<Int.random(in: 0..<4, using: &random)).map { _ in value(depth: depth + 1) })
            }
            return .object(object(depth: depth + 1))
        }
        func object(depth: Int) -> JSONObject {
            let keys = ["status", "eta", "driverName", "a", "B", "z9", "score", "é"]
            return JSONObject(
                members: keys.shuffled(using: &random).prefix(Int.random(in: 0...6, using: &random)).map {
                    ($0, value(depth: depth))
                })
        }
        for _ in 0..<400 {
            let values = object(depth: 0)
            let text = String(decoding: JSONValue.object(values).serialized(), as: UTF8.self)
            let (payload, parsed) = try read(text)
            XCTAssertEqual(parsed, values, text)
            try assertSameObject(payload, values, text)
        }
    }

    /// Numbers with a fraction, of every length and size, are written and measured as their values.
    func testDecimalsAreWrittenAndMeasuredAsTheirValues() throws {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<4000 {
            let wholes = ["0", "-0", "1", "-7", "42", String(Int.random(in: 1...999_999_999_999_999, using: &random))]
            let whole = wholes.randomElement(using: &random)!
            let zeros = String(repeating: "0", count: Int.random(in: 0...4, using: &random))
            let digits = String(UInt64.random(in: 0...UInt64.max, using: &random))
            var fraction = zeros + digits.prefix(Int.random(in: 0...17, using: &random))
            if fraction.isEmpty { fraction = "0" }
            let text = "{\"n\":\(whole).\(fraction)}"
            let (payload, values) = try read(text)
            try assertSameObject(payload, values, text)
        }
    }

    /// A push's content state reaches the activity with the fingerprint taken when it was read:
    /// on an update and on an end alike.
    func testPushedContentStatesAreShownWithTheirFingerprint() throws {
        let start: UnixSeconds = 1_767_225_600
        var emulator = DeviceEmulator(rules: .defaults, ids: SeededIdentifiers(seed: 7), now: start)
        let device = emulator.createDevice(keyHash: "h", at: start)
        let activity = try emulator.startActivity(
            body: [
                "deviceId": .string(device.id), "bundleId": "com.example.app", "attributesType": "A",
                "attributes": [:], "contentState": ["n": 0], "pushType": "token",
            ], at: start)
        let token = try XCTUnwrap(activity.pushToken)
        for (offset, event) in ["update", "end"].enumerated() {
            let time = start + Double(offset + 1)
            let body =
                #"{"aps":{"event":"\#(event)","timestamp":\#(Int(time)),"content-state":{"a":[1.5],"n":\#(offset)}}}"#
            let request = try LiveActivityPushRequest.validate(
                method: "POST", path: "/3/device/" + token,
                headers: APNsHeaderFields([
                    ("apns-push-type", "liveactivity"), ("apns-topic", "com.example.app.push-type.liveactivity"),
                ]),
                body: Array(body.utf8), authenticate: { _ in nil }, authorizeBundle: { _ in nil }
            ).get()
            let context = PushContext(apnsId: "a", uniqueId: "u", headers: [:], payload: .null)
            XCTAssertNil(emulator.deliver(request, context: context, at: time).error, event)
            let shown = try XCTUnwrap(emulator.activities[activity.id])
            XCTAssertEqual(shown.contentState, ["a": [1.5], "n": .int(Int64(offset))], event)
            XCTAssertEqual(shown.contentStateShape, ContentStateShape.fingerprint(of: shown.contentState), event)
        }
        XCTAssertEqual(emulator.activities[activity.id]?.state, .ended)
    }

    /// Keys and strings of every length up to 20, with a quote, a backslash escape, a control
    /// escape or a non-ASCII character at every place (the readers look at eight bytes at a time):
    /// the provider API's reading answers as the general parser does.
    func testSpecialBytesAtEveryPlaceReadAsTheGeneralParserReadsThem() throws {
        for length in 0...20 {
            let plain = String((0..<length).map { Character(UnicodeScalar(UInt8(ascii: "a") + UInt8($0 % 26))) })
            var texts = [plain]
            for place in 0...length {
                for special in [#"\""#, #"\\"#, #"\n"#, #"\u0001"#, "é", "\u{7F}", "~"] {
                    var text = plain
                    text.insert(contentsOf: special, at: text.index(text.startIndex, offsetBy: place))
                    texts.append(text)
                }
            }
            for text in texts {
                for json in [#"{"\#(text)":1}"#, #"{"k":"\#(text)"}"#] {
                    let body = Array(
                        #"{"aps":{"event":"update","timestamp":1,"content-state":\#(json)},"\#(text)":2}"#.utf8)
                    let general = LiveActivityPushRequest.checkBody(body) { try JSONValue(parsing: $0) }
                    let fast = LiveActivityPushRequest.checkBody(body)
                    XCTAssertEqual(try fast.get(), try general.get(), json)
                    let written = try fast.get().contentState.map { JSONValue.object($0).serialized() }
                    XCTAssertEqual(
                        written, try general.get().contentState.map { JSONValue.object($0).serialized() }, json)
                }
            }
        }
    }

    /// Changing a copy of a content state read from a body leaves the original as it was.
    func testChangingACopyKeepsTheOriginal() throws {
        let original = try XCTUnwrap(read(#"{"a":1,"b":[true]}"#).payload.contentState)
        var changed = original
        changed["c"] = "new"
        changed["a"] = nil
        XCTAssertEqual(changed, ["b": [true], "c": "new"])
        XCTAssertEqual(original, ["a": 1, "b": [true]])
        XCTAssertEqual(JSONValue.object(original).serialized(), Array(#"{"a":1,"b":[true]}"#.utf8))
        var removed = original
        XCTAssertEqual(removed.removeValue(forKey: "b"), [true])
        XCTAssertEqual(removed, ["a": 1])
        XCTAssertEqual(Set([JSONValue.object(original), .object(["a": 1, "b": [true]])]).count, 1)
    }
}
