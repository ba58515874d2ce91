import XCTest

@testable import RelayCore

/// The fingerprint the parser takes while it reads is the one `JSONShape.of` takes from the value,
/// and the size it takes is the count of the bytes the value's compact serialization writes.
final class JSONShapeTests: XCTestCase {
    /// The parser's fingerprint and size of the value at the start of `text`, read as if it were
    /// `base` containers deep (as `aps`'s values are read at depth 2).
    private func parsedShape(_ text: String, base: Int = 0) throws -> (value: JSONValue, shape: UInt64, size: Int) {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(bytes: buffer, maxDepth: 200)
            parser.shapeBase = base
            let value = try parser.parseValue(depth: base)
            return (value, parser.shape, parser.size)
        }
    }

    private func nested(_ levels: Int, _ inner: String) -> String {
        String(repeating: #"{"a":"#, count: levels) + inner + String(repeating: "}", count: levels)
    }

    func testTheParserTakesTheValuesFingerprint() throws {
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
        for text in documents {
            for base in [0, 2, 7] {
                let (value, shape, size) = try parsedShape(text, base: base)
                XCTAssertEqual(shape, JSONShape.of(value), "\(text) at \(base)")
                XCTAssertEqual(size, value.serialized().count, "\(text) at \(base)")
            }
        }
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
            XCTAssertEqual(try parsedShape(left).shape, try parsedShape(right).shape, "\(left) and \(right)")
        }
        let different = [
            (#"{"a":1}"#, #"{"b":1}"#), (#"{"a":1}"#, #"{"a":"1"}"#), (#"{"a":[1]}"#, #"{"a":["1"]}"#),
            (#"{"a":[]}"#, #"{"a":[1]}"#), (#"{"a":1,"b":1}"#, #"{"a":1}"#), (#"{"ab":1,"c":1}"#, #"{"a":1,"bc":1}"#),
            (#"{"a":{"b":1},"c":"x"}"#, #"{"a":{"b":"x"},"c":1}"#), (#"{"a":1,"b":"x"}"#, #"{"a":"x","b":1}"#),
            (nested(15, "1"), nested(15, #""x""#)),
        ]
        for (left, right) in different {
            XCTAssertNotEqual(try parsedShape(left).shape, try parsedShape(right).shape, "\(left) and \(right)")
        }
    }

    /// Random documents: the parser and the value agree.
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
            let text = document(0)
            let (value, shape, size) = try parsedShape(text)
            XCTAssertEqual(shape, JSONShape.of(value), text)
            XCTAssertEqual(size, value.serialized().count, text)
        }
    }
}
