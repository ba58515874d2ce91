import RelayJSON
import RelayTestKit
import XCTest

final class JSONParsingTests: XCTestCase {
    func testIntegersThatFitInt64StayIntegers() throws {
        let cases: [(String, JSONValue)] = [
            ("0", .int(0)),
            ("-0", .int(0)),
            ("1700000000", .int(1_700_000_000)),
            ("9223372036854775807", .int(.max)),
            ("-9223372036854775808", .int(.min)),
            ("9223372036854775808", .double(9_223_372_036_854_775_808)),
            ("-9223372036854775809", .double(-0x1p63)),
            ("18446744073709551616", .double(18_446_744_073_709_551_616)),
            ("7", .int(7)),
            ("-12", .int(-12)),
            ("999999999999999999", .int(999_999_999_999_999_999)),
            ("-999999999999999999", .int(-999_999_999_999_999_999)),
            ("1234567890123456789", .int(1_234_567_890_123_456_789)),
            ("[12,34]", [12, 34]),
            ("{\"a\":56}", ["a": 56]),
            ("1.0", .double(1)),
            ("12.5", .double(12.5)),
            ("1e2", .double(100)),
            ("15E1", .double(150)),
            ("0.0", .double(0)),
        ]
        for (text, value) in cases {
            XCTAssertEqual(try JSONValue(parsing: text), value, text)
        }
        XCTAssertEqual(try JSONValue(parsing: "-0.0").doubleValue?.sign, .minus)
    }

    func testDoublesMatchTheStandardLibrarysCorrectlyRoundedReading() throws {
        var generator = SplitMix64(seed: 0x5EED)
        for _ in 0..<20_000 {
            let digits = Int(generator.next() % 24) + 1
            var text = generator.next() % 2 == 0 ? "" : "-"
            text += String(generator.next() % 9 + 1)
            for _ in 1..<digits { text += String(generator.next() % 10) }
            let point = Int(generator.next() % UInt64(digits + 1))
            if point < digits && point > 0 {
                text.insert(".", at: text.index(text.endIndex, offsetBy: point - digits))
            }
            if generator.next() % 2 == 0 { text += "e\(Int(generator.next() % 90) - 45)" }
            guard case .double(let parsed) = try JSONValue(parsing: text) else { continue }
            XCTAssertEqual(parsed.bitPattern, Double(text)!.bitPattern, text)
        }
    }

    func testEdgeDoubles() throws {
        let cases: [(String, Double)] = [
            ("5e-324", .leastNonzeroMagnitude),
            ("2.2250738585072014e-308", 2.2250738585072014e-308),
            ("1.7976931348623157e308", .greatestFiniteMagnitude),
            ("0.1", 0.1),
            ("123456789012345678901234567890e-10", 1.2345678901234568e19),
            ("1e-400", 0),
        ]
        for (text, value) in cases {
            XCTAssertEqual(try JSONValue(parsing: text).doubleValue, value, text)
        }
        XCTAssertEqual(try JSONValue(parsing: "9007199254740993"), .int(9_007_199_254_740_993))
        XCTAssertEqual(try JSONValue(parsing: "9007199254740993.0"), .double(9_007_199_254_740_992))
    }

    func testEveryInputShapeParsesTheSameDocument() throws {
        let text = "{\"aps\":{\"event\":\"update\",\"timestamp\":1700000000}}"
        let expected: JSONValue = ["aps": ["event": "update", "timestamp": 1_700_000_000]]
        let bytes = Array(text.utf8)
        XCTAssertEqual(try JSONValue(parsing: text), expected)
        XCTAssertEqual(try JSONValue(parsing: bytes), expected)
        XCTAssertEqual(try JSONValue(parsing: bytes[...]), expected)
        XCTAssertEqual(try JSONValue(parsing: text.utf8), expected)
        XCTAssertEqual(try JSONValue(parsing: bytes.lazy.map { $0 }), expected)
        XCTAssertEqual(
            try bytes.withUnsafeBytes { raw throws(JSONParseError) in try JSONValue(parsing: raw) }, expected)
        // A slice keeps the offsets of the slice, not of its base.
        let sliced = Array("xx[1,]".utf8)[2...]
        XCTAssertThrowsError(try JSONValue(parsing: sliced)) { XCTAssertEqual(($0 as? JSONParseError)?.offset, 3) }
    }

    func testDuplicateKeysKeepTheLastValue() throws {
        XCTAssertEqual(try JSONValue(parsing: "{\"a\":1,\"b\":2,\"a\":{\"c\":3}}"), ["a": ["c": 3], "b": 2])
    }

    func testCanonicallyEquivalentKeysAreTwoMembers() throws {
        // Keys compare by bytes, as JSON members do (Swift's == would call these equal).
        let text = "{\"e\u{301}\":2,\"\u{E9}\":1}"
        let parsed = try JSONValue(parsing: text)
        XCTAssertEqual(parsed.objectValue?.count, 2)
        XCTAssertEqual(parsed["\u{E9}"], 1)
        XCTAssertEqual(parsed["e\u{301}"], 2)
        XCTAssertEqual(parsed.jsonString, text)
        XCTAssertNotEqual(parsed, try JSONValue(parsing: "{\"e\u{301}\":2,\"e\u{301}\":1}"))
    }

    func testStringsWithAndWithoutEscapesDecode() throws {
        let cases: [(String, String)] = [
            ("\"plain ascii\"", "plain ascii"),
            ("\"héllo wörld ✓ 😀\"", "héllo wörld ✓ 😀"),
            ("\"tab\\tnewline\\nquote\\\"slash\\/\"", "tab\tnewline\nquote\"slash/"),
            ("\"\\u00e9\\u20AC\\ud83d\\ude00\"", "é€😀"),
            ("\"mixed é\\n€ and 😀\\u0041\"", "mixed é\n€ and 😀A"),
            ("\"\\u0000\"", "\u{0}"),
        ]
        for (text, value) in cases {
            XCTAssertEqual(try JSONValue(parsing: text), .string(value), text)
        }
    }

    func testWhitespaceIsOnlySpaceTabCRAndLF() throws {
        XCTAssertEqual(try JSONValue(parsing: " \t\r\n{ \"a\" :\n[ 1 ,\t2 ] } \n"), ["a": [1, 2]])
        for other in ["\u{C}1", "\u{B}1", "\u{A0}1", "1\u{2028}"] {
            XCTAssertThrowsError(try JSONValue(parsing: other), other.debugDescription)
        }
    }
}
