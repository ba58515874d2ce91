import RelayJSON
import XCTest

@testable import RelayCore

/// The measures the size and shape rules take of a content state, in their own pass over the
/// parsed value: the size is the count of the bytes its compact serialization writes, and a push
/// body's content state gets the fingerprint and size of its value.
final class ContentStateFingerprintTests: XCTestCase {
    /// The fingerprint of the value `text` parses to.
    private func shape(_ text: String) throws -> UInt64 {
        ContentStateShape.fingerprint(of: try JSONValue(parsing: text))
    }

    /// `text`'s size is what its value serializes to; as a push's content state (when it is an
    /// object), the payload carries its value's fingerprint and size.
    private func assertMeasures(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let value = try JSONValue(parsing: text)
        XCTAssertEqual(ActivityDataSize.bytes(of: value), value.serialized().count, text, file: file, line: line)
        guard case .object = value else { return }
        let body = Array(#"{"aps":{"event":"update","timestamp":1,"content-state":\#(text)}}"#.utf8)
        let payload = try LiveActivityPayload.decode(body).get()
        XCTAssertEqual(
            payload.contentStateShape, ContentStateShape.fingerprint(of: value), text, file: file, line: line)
        XCTAssertEqual(payload.contentStateBytes, value.serialized().count, text, file: file, line: line)
    }

    private func nested(_ levels: Int, _ inner: String) -> String {
        String(repeating: #"{"a":"#, count: levels) + inner + String(repeating: "}", count: levels)
    }

    func testMeasuresAreThoseOfTheValue() throws {
        let documents = [
            "null", "true", "false", "0", "-1.5e3", #""text""#, "[]", "{}", "[1]", #"["a", 1]"#, "[[]]", "[{}]",
            #"{"a":1}"#, #"{"b":"x","a":[1,{"c":null}]}"#, #"{"caf\u00e9":1,"é":2}"#, #"{"a\"b":1,"a\\b":2}"#,
            #"{"a":1,"a":"x"}"#, #"{"a":{"b":1,"b":2,"c":3},"d":[{"e":1,"e":[]}]}"#,
            #"{"long key with more than eight bytes":1,"exactly8":2,"sixteen_bytes_ok":3}"#,
            nested(15, "1"), nested(16, "1"), nested(17, #""x""#), nested(20, "[1]"), nested(16, #"{"b":1,"b":2}"#),
            "[" + nested(16, "1") + "]", String(repeating: "[", count: 30) + String(repeating: "]", count: 30),
            "1.50", "-0", "-0.0", "1e2", "12345678901234567890", #""\u2028\/x""#, #"{"\u0041":"\t","sep":"\u2029"}"#,
            #"[ 1 , { "a" : [ ] , "b" : { } } ]"#, "\"caf\u{E9} \u{2028}\"",
        ]
        for text in documents { try assertMeasures(text) }
    }

    /// Members in another order, with other values of the same types: the same fingerprint.
    /// Another key, another type or another first element: another one.
    func testFingerprintsFollowKeysAndTypesNotOrderOrValues() throws {
        let same = [
            (#"{"a":1,"b":"x","c":[true]}"#, #"{"c":[false,1],"b":"y","a":2.5}"#),
            (#"{"a":{"b":null}}"#, #"{"a":{"b":null}}"#),
            (nested(16, #"{"y":1}"#), nested(16, #"{"z":"deeper than looked"}"#)),
        ]
        for (left, right) in same {
            XCTAssertEqual(try shape(left), try shape(right), "\(left) and \(right)")
        }
        let different = [
            (#"{"a":1}"#, #"{"b":1}"#), (#"{"a":1}"#, #"{"a":"1"}"#), (#"{"a":[1]}"#, #"{"a":["1"]}"#),
            (#"{"a":[]}"#, #"{"a":[1]}"#), (#"{"a":1,"b":1}"#, #"{"a":1}"#), (#"{"ab":1,"c":1}"#, #"{"a":1,"bc":1}"#),
            (#"{"a":{"b":1},"c":"x"}"#, #"{"a":{"b":"x"},"c":1}"#), (#"{"a":1,"b":"x"}"#, #"{"a":"x","b":1}"#),
            (nested(15, "1"), nested(15, #""x""#)),
        ]
        for (left, right) in different {
            XCTAssertNotEqual(try shape(left), try shape(right), "\(left) and \(right)")
        }
    }

    /// Random documents: the measures and the values agree.
    func testGeneratedDocumentsAgree() throws {
        var random = SystemRandomNumberGenerator()
        func document(_ depth: Int) -> String {
            switch Int.random(in: 0..<(depth > 4 ? 4 : 7), using: &random) {
            case 0: return "\(Int.random(in: -99...99, using: &random))"
            case 1: return ["true", "null", #""s""#, "0.5", "1.50", "1e2", "-0"].randomElement(using: &random)!
            case 2: return [#""\u00e9\n""#, #""\u2028/\/""#, "\"\u{E9}\u{2029}\""].randomElement(using: &random)!
            case 3: return "[]"
            case 4, 5:
                let count = Int.random(in: 0...4, using: &random)
                let keys = (0..<count).map { _ in
                    ["a", "b", "c", "a\\u0062", "longer key name"].randomElement(using: &random)!
                }
                return "{" + keys.map { "\"\($0)\":" + document(depth + 1) }.joined(separator: ",") + "}"
            default:
                let count = Int.random(in: 1...3, using: &random)
                return "[" + (0..<count).map { _ in document(depth + 1) }.joined(separator: ",") + "]"
            }
        }
        for _ in 0..<500 {
            try assertMeasures(document(0))
        }
    }
}
