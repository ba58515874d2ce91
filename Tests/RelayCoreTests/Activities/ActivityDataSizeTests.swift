import RelayJSON
import RelayTestKit
import XCTest

@testable import RelayCore

final class ActivityDataSizeTests: XCTestCase {
    func testCountsCompactJSONBytes() {
        let table: [(value: JSONValue, json: String)] = [
            (nil, "null"), (true, "true"), (false, "false"),
            (0, "0"), (7, "7"), (-7, "-7"), (1_000_000, "1000000"),
            (.int(.max), "9223372036854775807"), (.int(.min), "-9223372036854775808"),
            (1.5, "1.5"), (.double(.nan), "null"),
            ("", #""""#), ("abc", #""abc""#), ("x\"y\\z", #""x\"y\\z""#), ("a\nb\t", #""a\nb\t""#),
            (.string("\u{1}"), #""\u0001""#), ("é€😀", "\"é€😀\""),
            ([], "[]"), ([1, 2, 3], "[1,2,3]"), ([:], "{}"),
            (["a": 1, "b": [true, nil, "x"]], #"{"a":1,"b":[true,null,"x"]}"#),
            (["k\"": ["n": []]], #"{"k\"":{"n":[]}}"#),
        ]
        for row in table {
            XCTAssertEqual(ActivityDataSize.bytes(of: row.value), row.json.utf8.count, row.json)
        }
    }

    /// Strings are measured eight bytes at a time; an escape counts wherever it falls in a word,
    /// in the tail, or next to non-ASCII text.
    func testLongStringsCountEveryEscapeWhereverItFalls() {
        func expected(_ text: String) -> Int {
            2
                + text.utf8.reduce(0) { total, byte in
                    switch byte {
                    case 0x22, 0x5C, 0x08, 0x09, 0x0A, 0x0C, 0x0D: return total + 2
                    case 0..<0x20: return total + 6
                    default: return total + 1
                    }
                }
        }
        let base = Array("abcdefghijklmnopqrstuvwxy")
        for special in ["\"", "\\", "\n", "\u{1}", "\u{1F}", "é", "😀", "\"\""] {
            for position in 0...base.count {
                var characters = base
                characters.insert(contentsOf: special, at: position)
                let text = String(characters)
                XCTAssertEqual(ActivityDataSize.bytes(of: .string(text)), expected(text), text.debugDescription)
            }
        }
        let plain = String(repeating: "0123456789", count: 10)
        XCTAssertEqual(ActivityDataSize.bytes(of: .string(plain)), 102)
    }

    /// The measure is the serializer's own count, for every kind of value and wherever an escape,
    /// a line or paragraph separator (written as `\u2028`, `\u2029`) or other non-ASCII text falls.
    func testAgreesWithTheSerializer() {
        var values: [JSONValue] = [
            nil, true, false, 0, -7, .int(.max), .int(.min), 1.5, -0.25, 1e300, .double(.leastNonzeroMagnitude),
            .double(.nan),
            ["a": 1, "b": [true, nil, "x"], "c": ["d": 2.75]], [[], [:], [[1]]],
        ]
        let base = Array("abcdefghijklmnopqrstuvwxy")
        for special in [
            "\u{2028}", "\u{2029}", "\u{2027}", "\u{202A}", "\u{20AC}", "\"", "\u{1}", "\u{7F}", "\u{2028}\u{2029}",
        ] {
            for position in 0...base.count {
                var characters = base
                characters.insert(contentsOf: special, at: position)
                values.append(.string(String(characters)))
            }
        }
        values.append(["key\u{2028}": ["\u{2029}"]])
        for value in values {
            let written = value.serialized()
            XCTAssertEqual(
                ActivityDataSize.bytes(of: value), written.count, String(decoding: written, as: UTF8.self))
        }
    }

    /// A push body's content state is measured when the payload is read. Whatever its strings
    /// hold (escapes, non-ASCII text, separators, escaped keys, at any depth) and whatever the members around it hold, the size is the serializer's
    /// count of the content state, as for a content state measured on its own.
    func testAPushBodysContentStateIsMeasuredAsTheSerializerWritesIt() throws {
        let contentStates = [
            #"{"eta":5,"status":"onTheWay","driver":{"name":"Sam","stops":[1,2.5,true,null]}}"#,
            #"{"note":"say \"hi\"","path":"a\\b","line":"x\ny"}"#, #"{"city":"Zürich","emoji":"😀"}"#,
            #"{"sep":"a\u2028b","esc":"\u0041\u00e9"}"#, #"{"k\"ey":1,"plain":"text"}"#, #"{"é":"key","x":"y"}"#,
            #"{"nested":{"deep":[{"s":"\t"}]},"ok":"plain"}"#, #"{}"#, #"{"only":"plain ascii / with slash"}"#,
            #"{"raw separator":""# + "a\u{2028}b\u{2029}" + #""}"#,
            #"{"n":1.50,"e":1e2,"z":-0,"big":12345678901234567890,"neg":-42,"f":0.1,"m":-0.0}"#,
            #"{"a":"a longer value that goes","a":12,"b":[1,1],"c":{"d":1,"d":"two"}}"#, #"{"e":[],"o":{}}"#,
        ]
        for contentState in contentStates {
            for (before, after) in [("", ""), (#""alert":{"title":"Ünïcode \" title"},"#, ""), ("", #","x":"\n""#)] {
                let body =
                    #"{"aps":{"event":"update","timestamp":1,"# + before + #""content-state":"# + contentState + after
                    + "}}"
                let payload = try LiveActivityPayload.decode(Array(body.utf8)).get()
                let parsed = try XCTUnwrap(payload.contentState, body)
                let written = JSONValue.object(parsed).serialized()
                XCTAssertEqual(payload.contentStateBytes, written.count, body)
                XCTAssertEqual(payload.contentStateBytes, ActivityDataSize.bytes(of: .object(parsed)), body)
            }
        }
    }

    /// Random content states, each written into a push body with a random mix of raw characters
    /// and escapes (so the parser sees plain, escaped and non-ASCII strings, raw and escaped
    /// U+2028, in keys and values, at any depth): the size measured while reading is always the
    /// serializer's count of what was read.
    func testRandomContentStatesAreMeasuredAsTheSerializerWritesThem() throws {
        var generator = SplitMix64(seed: 0xC0_FFEE)
        func below(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &generator) }
        let characters: [Character] = [
            "a", "Z", "0", " ", "/", "\"", "\\", "\n", "\u{1}", "\u{7F}", "é", "€", "😀", "\u{2028}", "\u{2029}",
        ]
        func text() -> String {
            String((0..<below(6)).map { _ in characters[below(characters.count)] })
        }
        func value(depth: Int) -> JSONValue {
            switch below(depth < 3 ? 8 : 6) {
            case 0: return .null
            case 1: return .bool(below(2) == 0)
            case 2: return .int(Int64(below(2_000_001)) - 1_000_000)
            case 3: return .double(Double(below(100_000)) / 64 - 500)
            case 4, 5: return .string(text())
            case 6: return .array((0..<below(4)).map { _ in value(depth: depth + 1) })
            default: return .object(object(depth: depth + 1))
            }
        }
        func object(depth: Int) -> JSONObject {
            JSONObject(members: (0..<below(5)).map { _ in (text(), value(depth: depth)) })
        }
        /// `string` quoted, each character raw or escaped at random where either is allowed.
        func written(_ string: String) -> String {
            var out = "\""
            for scalar in string.unicodeScalars {
                let mustEscape = scalar == "\"" || scalar == "\\" || scalar.value < 0x20
                if !mustEscape, below(2) == 0 {
                    out.unicodeScalars.append(scalar)
                    continue
                }
                for unit in String(scalar).utf16 {
                    out +=
                        "\\u" + String(repeating: "0", count: 4 - String(unit, radix: 16).count)
                        + String(unit, radix: 16)
                }
            }
            return out + "\""
        }
        func written(_ value: JSONValue) -> String {
            switch value {
            case .string(let string): return written(string)
            case .array(let elements): return "[" + elements.map { written($0) }.joined(separator: " ,") + "]"
            case .object(let members):
                return "{ " + members.map { written($0.key) + ": " + written($0.value) }.joined(separator: ",") + "}"
            default: return String(decoding: value.serialized(), as: UTF8.self)
            }
        }
        for _ in 0..<2_000 {
            let contentState = object(depth: 0)
            let body =
                #"{"aps":{"event":"update","timestamp":1,"content-state":"# + written(.object(contentState))
                + "}}"
            let payload = try LiveActivityPayload.decode(Array(body.utf8)).get()
            XCTAssertEqual(payload.contentState, contentState, body)
            XCTAssertEqual(payload.contentStateBytes, JSONValue.object(contentState).serialized().count, body)
        }
    }
}
