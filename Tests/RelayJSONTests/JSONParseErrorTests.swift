import RelayJSON
import XCTest

final class JSONParseErrorTests: XCTestCase {
    private func error(_ text: String, maxDepth: Int = JSONValue.defaultMaxDepth) -> JSONParseError? {
        do {
            _ = try JSONValue(parsing: text, maxDepth: maxDepth)
            return nil
        } catch {
            return error
        }
    }

    private func error(_ bytes: [UInt8]) -> JSONParseError? {
        do {
            _ = try JSONValue(parsing: bytes)
            return nil
        } catch {
            return error
        }
    }

    func testErrorsNameTheOffendingByteAndItsOffset() {
        let cases: [(input: String, offset: Int, description: String)] = [
            ("{\"key\": 1, \"other\" = 2}", 19, "expected ':' after object key, found '=' at byte 19"),
            ("{\"a\":1,}", 7, "expected a string key after ',', found '}' at byte 7"),
            ("{,}", 1, "expected a string key or '}', found ',' at byte 1"),
            ("[1 2]", 3, "expected ',' or ']' after array element, found '2' at byte 3"),
            ("{\"a\":1 \"b\":2}", 7, "expected ',' or '}' after object member, found '\"' at byte 7"),
            ("[1,2", 4, "expected ',' or ']' after array element, found end of input at byte 4"),
            ("", 0, "expected a value, found end of input at byte 0"),
            ("  x", 2, "expected a value, found 'x' at byte 2"),
            ("[01]", 1, "leading zeros are not allowed in numbers at byte 1"),
            ("-x", 1, "expected a digit after '-', found 'x' at byte 1"),
            ("1.e5", 2, "expected a digit after '.', found 'e' at byte 2"),
            ("1e+", 3, "expected a digit in the exponent, found end of input at byte 3"),
            ("[1e999]", 1, "number 1e999 is out of range for a Double at byte 1"),
            ("[trve]", 3, "expected 'true', found 'v' at byte 3"),
            ("nul", 3, "expected 'null', found end of input at byte 3"),
            ("\"ab\ncd\"", 3, "unescaped control character 0x0A in string at byte 3"),
            ("\"a\\qb\"", 3, "invalid escape character 'q' after '\\' at byte 3"),
            ("\"x\\u12G4\"", 6, "expected 4 hex digits after '\\u', found 'G' at byte 6"),
            (
                "[\"\\uD800x\"]", 2,
                "lone surrogate \\uD800 is not a character (a high surrogate needs a low one after it) at byte 2"
            ),
            ("[\"abc", 5, "unterminated string starting at byte 1, found end of input at byte 5"),
            ("{} {}", 3, "expected end of input after the JSON value, found '{' at byte 3"),
            ("[[1]]", 1, "arrays and objects nested deeper than 1 levels at byte 1"),
        ]
        for (input, offset, description) in cases {
            let failure = error(input, maxDepth: input == "[[1]]" ? 1 : JSONValue.defaultMaxDepth)
            XCTAssertEqual(failure?.offset, offset, input)
            XCTAssertEqual(failure?.description, description, input)
        }
    }

    func testInvalidUTF8IsReportedWhereTheBadSequenceStarts() {
        // "aé" then 0xC3 0x28: a lead byte whose continuation is missing.
        let input: [UInt8] = [0x22, 0x61, 0xC3, 0xA9, 0xC3, 0x28, 0x22]
        XCTAssertEqual(error(input), JSONParseError(kind: .invalidUTF8, offset: 4, message: "invalid UTF-8 byte 0xC3"))
        // The same after an escape, which takes the decoding path.
        let escaped: [UInt8] = [0x22, 0x5C, 0x74, 0x61, 0xF5, 0x80, 0x80, 0x80, 0x22]
        XCTAssertEqual(error(escaped)?.offset, 4)
        XCTAssertEqual(error(escaped)?.kind, .invalidUTF8)
    }

    func testNestingUpToTheLimitParsesAndOneMoreFails() throws {
        let limit = JSONValue.defaultMaxDepth
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        XCTAssertNoThrow(try JSONValue(parsing: deepest))
        let tooDeep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        XCTAssertEqual(error(tooDeep)?.kind, .tooDeep)
        XCTAssertEqual(error(tooDeep)?.offset, limit)
        let objects = String(repeating: "{\"a\":", count: limit + 1) + "1" + String(repeating: "}", count: limit + 1)
        XCTAssertEqual(error(objects)?.offset, 5 * limit)
    }

    func testDepthLimitIsAParameter() throws {
        XCTAssertEqual(try JSONValue(parsing: "[{\"a\":[]}]", maxDepth: 3), [["a": []]])
        XCTAssertEqual(error("[{\"a\":[]}]", maxDepth: 2)?.offset, 6)
        XCTAssertEqual(try JSONValue(parsing: "7", maxDepth: 0), 7)
        XCTAssertEqual(error("[]", maxDepth: 0)?.kind, .tooDeep)
    }

    func testHostileNestingFailsFastWithoutExhaustingTheStack() {
        let hostile = [UInt8](repeating: UInt8(ascii: "["), count: 1_000_000)
        XCTAssertEqual(error(hostile)?.kind, .tooDeep)
    }

    func testNonPrintableBytesAreShownInHex() {
        XCTAssertEqual(error([0x01])?.message, "expected a value, found 0x01")
        XCTAssertEqual(error([0x5B, 0x31, 0xFF])?.message, "expected ',' or ']' after array element, found 0xFF")
    }
}
