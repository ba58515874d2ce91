import RelayTestKit
import XCTest

@testable import RelayJSON

final class JSONSerializationTests: XCTestCase {
    func testOutputIsCompactWithKeysSorted() {
        let value: JSONValue = [
            "b": 1, "a": [true, false, nil, "x"], "c": ["z": 1.5, "y": -2, "": [:]], "aa": [],
        ]
        XCTAssertEqual(
            value.jsonString, "{\"a\":[true,false,null,\"x\"],\"aa\":[],\"b\":1,\"c\":{\"\":{},\"y\":-2,\"z\":1.5}}")
        XCTAssertEqual(value.serialized(), Array(value.jsonString.utf8))
    }

    func testKeysSortByUTF8BytesNotByStringComparison() {
        // Swift's `<` normalizes "e\u{301}" to "é" and puts it after "f"; byte order puts it before.
        let value: JSONValue = ["f": 1, "e\u{301}": 2, "ê": 3, "Z": 4, "a": 5, "😀": 6, "\u{FFFF}": 7]
        XCTAssertEqual(value.jsonString, "{\"Z\":4,\"a\":5,\"e\u{301}\":2,\"f\":1,\"ê\":3,\"\u{FFFF}\":7,\"😀\":6}")
    }

    func testStringsEscapeQuotesBackslashesAndControlCharacters() {
        let cases: [(String, String)] = [
            ("plain", "\"plain\""),
            ("q\"b\\s/", "\"q\\\"b\\\\s/\""),
            ("\n\r\t\u{8}\u{C}", "\"\\n\\r\\t\\b\\f\""),
            ("\u{0}\u{1}\u{1F}\u{7F}", "\"\\u0000\\u0001\\u001f\u{7F}\""),
            ("line\u{2028}para\u{2029}end", "\"line\\u2028para\\u2029end\""),
            ("€\u{2027}\u{202A}éñ😀", "\"€\u{2027}\u{202A}éñ😀\""),
            ("\u{E2}", "\"\u{E2}\""),
            ("ends with \u{2028}", "\"ends with \\u2028\""),
        ]
        for (text, json) in cases {
            XCTAssertEqual(JSONValue.string(text).jsonString, json, text.debugDescription)
        }
    }

    func testIntegersAreWrittenExactly() {
        let cases: [(Int64, String)] = [
            (0, "0"), (7, "7"), (-7, "-7"), (10, "10"), (1_700_000_000_123, "1700000000123"),
            (.max, "9223372036854775807"), (.min, "-9223372036854775808"),
        ]
        for (number, json) in cases {
            XCTAssertEqual(JSONValue.int(number).jsonString, json)
        }
    }

    func testDoublesUseTheShortestRoundTripFormAndKeepAFraction() {
        let cases: [(Double, String)] = [
            (3, "3.0"), (-0.0, "-0.0"), (0.1, "0.1"), (1.5, "1.5"), (1e15, "1000000000000000.0"),
            (1e16, "1e+16"), (1e-5, "1e-05"), (0.0001, "0.0001"), (.leastNonzeroMagnitude, "5e-324"),
            (.greatestFiniteMagnitude, "1.7976931348623157e+308"), (1_700_000_000.25, "1700000000.25"),
            (.nan, "null"), (.infinity, "null"), (-.infinity, "null"),
        ]
        for (number, json) in cases {
            XCTAssertEqual(JSONValue.double(number).jsonString, json)
        }
    }

    func testSerializeIntoAppendsAfterExistingBytes() {
        var out = Array("data: ".utf8)
        let event: JSONValue = ["seq": 1]
        event.serialize(into: &out)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "data: {\"seq\":1}")
    }

    func testEveryFiniteDoubleRoundTripsBitForBit() throws {
        var generator = SplitMix64(seed: 42)
        var checked = 0
        while checked < 20_000 {
            let number = Double(bitPattern: generator.next())
            guard number.isFinite else { continue }
            let parsed = try JSONValue(parsing: JSONValue.double(number).serialized())
            guard case .double(let back) = parsed else { return XCTFail("\(number) read back as \(parsed)") }
            XCTAssertEqual(back.bitPattern, number.bitPattern, "\(number)")
            checked += 1
        }
    }

    func testEveryIntegerRoundTrips() throws {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<10_000 {
            let number = Int64(bitPattern: generator.next()) >> (generator.next() % 64)
            XCTAssertEqual(try JSONValue(parsing: JSONValue.int(number).serialized()), .int(number))
        }
    }

    func testEveryUnicodeScalarRoundTrips() throws {
        // Every scalar of the first two planes, then a sample of the rest.
        var scalars = String.UnicodeScalarView()
        for value in UInt32(0)...0x10FFFF where value < 0x20000 || value % 97 == 0 {
            if let scalar = Unicode.Scalar(value) { scalars.append(scalar) }
        }
        let text = String(scalars)
        XCTAssertEqual(try JSONValue(parsing: JSONValue.string(text).serialized()), .string(text))
    }

    func testDocumentsRoundTrip() throws {
        let document: JSONValue = [
            "aps": [
                "timestamp": 1_700_000_000, "event": "update", "relevance-score": 0.75,
                "content-state": ["driver": "Zoë \"Z\" O'Neil", "eta": [1, 2.5, -3], "note": "ß\n\t😀"],
                "alert": ["title": ["loc-key": "T", "loc-args": ["a", nil, true]]],
            ],
            "empty": [:], "list": [],
        ]
        let text = document.jsonString
        XCTAssertEqual(try JSONValue(parsing: text), document)
        XCTAssertEqual(try JSONValue(parsing: text).jsonString, text)
    }
}

final class JSONStringEscapingTests: XCTestCase {
    /// Strings built from every kind of byte run the word-at-a-time scan must notice, at every
    /// offset within a word, written exactly as a byte-by-byte escaper writes them.
    func testEveryStringIsEscapedAsByteByByte() {
        let pieces = [
            "plain ascii ", "\"", "\\", "\n", "\u{01}", "\u{1F}", "\t", "é", "\u{2028}", "\u{2029}", "€", "😀", "/",
            "\u{7F}", " ", "abcdefgh",
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            var text = String(repeating: "x", count: Int.random(in: 0..<9, using: &generator))
            for _ in 0..<Int.random(in: 0..<12, using: &generator) { text += pieces.randomElement(using: &generator)! }
            XCTAssertEqual(JSONValue.string(text).jsonString, Self.reference(text), text.debugDescription)
            XCTAssertEqual(try JSONValue(parsing: JSONValue.string(text).serialized()), .string(text))
        }
    }

    private static func reference(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

final class JSONDoubleWritingTests: XCTestCase {
    /// Doubles from random bit patterns (every exponent and sign) are written as `description`
    /// writes them, and read back to the same bits.
    func testRandomDoublesAreWrittenAsTheirShortestForm() throws {
        var generator = SystemRandomNumberGenerator()
        var checked = 0
        while checked < 5000 {
            let value = Double(bitPattern: generator.next())
            guard value.isFinite else { continue }
            checked += 1
            XCTAssertEqual(JSONValue.double(value).jsonString, value.description)
            XCTAssertEqual(try JSONValue(parsing: JSONValue.double(value).serialized()).doubleValue, value)
        }
        for value in [-Double.greatestFiniteMagnitude, -Double.leastNonzeroMagnitude, 1795987131.9571087, -0.0, 0.1] {
            XCTAssertEqual(JSONValue.double(value).jsonString, value.description)
        }
    }

    /// The short-fraction path (clock times, scores, prices) writes exactly what `description`
    /// writes: clock readings with microseconds, decimals of every length, values near the edges
    /// of its range, and near-ties it must leave to the general path.
    func testShortFractionsAreWrittenAsDescriptionDoes() throws {
        var generator = SystemRandomNumberGenerator()
        var values: [Double] = [
            0.001, 0.0015, 0.1, 0.2, 0.3, 0.7, 2.5, 100.25, 1.0 / 3, 2.0 / 3, 1e15 - 0.5, 999_999_999_999_999.9,
            1_750_003_456.789123, 1_750_003_456.5, 0.0009999, 123.456e-2, 9.995, 0.995, 1.005, 2.675,
        ]
        for _ in 0..<20_000 {
            let digits = Int.random(in: 0...15, using: &generator)
            let scale = (0..<digits).reduce(1.0) { product, _ in product * 10 }
            let whole = Double(Int64.random(in: -2_000_000_000...2_000_000_000, using: &generator))
            values.append(whole + Double(Int64.random(in: 0...Int64(scale), using: &generator)) / scale)
            values.append(1_700_000_000 + Double.random(in: 0..<100_000_000, using: &generator))
            values.append(Double.random(in: 0.001..<1, using: &generator))
            values.append(
                Double(bitPattern: UInt64.random(in: 0x3F50_0000_0000_0000...0x4330_0000_0000_0000, using: &generator)))
        }
        // Clock readings to the microsecond, as the relay's system clock gives them.
        var clockReadings: [Double] = []
        for _ in 0..<20_000 {
            let micros = Int64.random(in: 1_700_000_000_000_000...1_900_000_000_000_000, using: &generator)
            clockReadings.append(Double(micros) / 1_000_000)
        }
        for value in values + clockReadings {
            XCTAssertEqual(JSONValue.double(value).jsonString, value.description, "\(value.bitPattern)")
        }
        let fast = clockReadings.filter { value in
            var out = JSONOutput()
            return JSONWriter.writeShortFraction(value, to: &out)
        }
        XCTAssertGreaterThan(fast.count, clockReadings.count * 99 / 100, "the short path writes clock readings")
    }
}
