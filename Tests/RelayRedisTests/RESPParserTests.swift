import RelayRedis
import XCTest

final class RESPParserTests: XCTestCase {
    private func parse(_ text: String, limits: RESPLimits = RESPLimits()) throws -> [RESPValue] {
        var parser = RESPParser(limits: limits)
        parser.append(Array(text.utf8))
        var values: [RESPValue] = []
        while let value = try parser.next() { values.append(value) }
        return values
    }

    func testEveryType() throws {
        XCTAssertEqual(try parse("+OK\r\n"), [.simpleString("OK")])
        XCTAssertEqual(try parse("-ERR bad\r\n"), [.error("ERR bad")])
        XCTAssertEqual(try parse("!9\r\nSYNTAX no\r\n"), [.error("SYNTAX no")])
        XCTAssertEqual(try parse(":-42\r\n"), [.integer(-42)])
        XCTAssertEqual(try parse("$5\r\nhe\r\no\r\n"), [.bulkString(Array("he\r\no".utf8))])
        XCTAssertEqual(try parse("$0\r\n\r\n"), [.bulkString([])])
        XCTAssertEqual(try parse("_\r\n$-1\r\n*-1\r\n"), [.null, .null, .null])
        XCTAssertEqual(try parse("#t\r\n#f\r\n"), [.boolean(true), .boolean(false)])
        XCTAssertEqual(try parse(",1.5\r\n,-inf\r\n"), [.double(1.5), .double(-.infinity)])
        XCTAssertEqual(
            try parse("(3492890328409238509324850943850943825024385\r\n"),
            [.bigNumber("3492890328409238509324850943850943825024385")])
        XCTAssertEqual(try parse("=8\r\ntxt:Some\r\n"), [.verbatim(format: "txt", text: Array("Some".utf8))])
        XCTAssertEqual(try parse("*2\r\n:1\r\n+a\r\n"), [.array([.integer(1), .simpleString("a")])])
        XCTAssertEqual(try parse("~1\r\n:1\r\n"), [.set([.integer(1)])])
        XCTAssertEqual(try parse(">2\r\n+message\r\n:7\r\n"), [.push([.simpleString("message"), .integer(7)])])
        XCTAssertEqual(
            try parse("%1\r\n+key\r\n*1\r\n_\r\n"),
            [.map([RESPPair(key: .simpleString("key"), value: .array([.null]))])])
        // An attribute describes the next value and is dropped.
        XCTAssertEqual(try parse("|1\r\n+ttl\r\n:3\r\n:9\r\n"), [.integer(9)])
        XCTAssertTrue(
            try parse(",nan\r\n").first.map { if case .double(let d) = $0 { d.isNaN } else { false } } ?? false)
    }

    func testEncoderRoundTripsEveryType() throws {
        let values: [RESPValue] = [
            .simpleString("OK"), .error("ERR x"), .integer(.min), .bulkString([0, 13, 10, 255]), .null, .boolean(true),
            .double(-2.25), .bigNumber("-123456789012345678901234567890"),
            .verbatim(format: "mkd", text: Array("# hi".utf8)),
            .array([.integer(1), .array([])]), .set([.simpleString("a")]), .push([.bulkString(Array("x".utf8))]),
            .map([RESPPair(key: .bulkString(Array("k".utf8)), value: .map([]))]),
        ]
        var parser = RESPParser()
        for value in values { parser.append(RESPEncoder.encode(value)) }
        for value in values { XCTAssertEqual(try parser.next(), value) }
        XCTAssertNil(try parser.next())
    }

    func testCommandEncoding() {
        XCTAssertEqual(
            String(decoding: RESPEncoder.command([Array("SET".utf8), Array("k".utf8), []]), as: UTF8.self),
            "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n")
    }

    func testValuesArriveOneByteAtATime() throws {
        let stream = "*3\r\n$5\r\nhello\r\n%1\r\n+a\r\n,2.5\r\n:7\r\n+done\r\n$-1\r\n"
        var parser = RESPParser()
        var values: [RESPValue] = []
        for byte in stream.utf8 {
            parser.append([byte])
            while let value = try parser.next() { values.append(value) }
        }
        XCTAssertEqual(
            values,
            [
                .array([
                    .bulkString(Array("hello".utf8)), .map([RESPPair(key: .simpleString("a"), value: .double(2.5))]),
                    .integer(7),
                ]),
                .simpleString("done"), .null,
            ])
        XCTAssertEqual(parser.bufferedByteCount, 0)
    }

    func testBadInputIsAClearError() {
        let cases: [(String, RESPError.Reason)] = [
            ("?x\r\n", .unknownType), ("+OK\n", .badLineEnding), ("+O\rK\r\n", .badLineEnding),
            (":12a\r\n", .badInteger), (":\r\n", .badInteger), ("$-2\r\n", .badLength), ("*-5\r\n", .badLength),
            ("$3\r\nabcd\r\n", .badLineEnding), ("#x\r\n", .badBoolean), (",1.2.3x\r\n", .badDouble),
            ("=2\r\nab\r\n", .badVerbatim), ("_x\r\n", .badNull), ("(12z\r\n", .badInteger),
            (":99999999999999999999999\r\n", .badInteger),
        ]
        for (input, reason) in cases {
            XCTAssertThrowsError(try parse(input), input) { error in
                XCTAssertEqual((error as? RESPError)?.reason, reason, input)
            }
        }
    }

    func testLimitsBoundHostileSizes() {
        var limits = RESPLimits()
        limits.maxBulkBytes = 10
        limits.maxAggregateCount = 3
        limits.maxDepth = 2
        limits.maxLineBytes = 24
        let cases: [(String, RESPError.Reason)] = [
            ("$11\r\n", .bulkTooLarge), ("$922337203685477\r\n", .bulkTooLarge), ("*4\r\n", .aggregateTooLarge),
            ("%4\r\n", .aggregateTooLarge), ("*1\r\n*1\r\n*1\r\n:1\r\n", .tooDeep),
            ("+" + String(repeating: "a", count: 40), .lineTooLong),
        ]
        for (input, reason) in cases {
            XCTAssertThrowsError(try parse(input, limits: limits), input) { error in
                XCTAssertEqual((error as? RESPError)?.reason, reason, input)
            }
        }
        XCTAssertThrowsError(try parse(String(repeating: "|0\r\n", count: 100_000) + ":1\r\n")) { error in
            XCTAssertEqual((error as? RESPError)?.reason, .tooDeep, "a chain of attributes is bounded")
        }
        // A huge declared count with no elements behind it allocates nothing and waits for data.
        XCTAssertEqual(try parse("*1000000\r\n:1\r\n"), [])
    }

    func testRandomBytesNeverCrash() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("+-:$*%~>_#,(=!|\r\n0123456789-abc".utf8)
        for _ in 0..<3000 {
            var parser = RESPParser()
            let bytes = (0..<Int.random(in: 1...40, using: &generator)).map { _ in
                Bool.random(using: &generator)
                    ? alphabet.randomElement(using: &generator)! : UInt8.random(in: 0...255, using: &generator)
            }
            parser.append(bytes)
            while let value = try? parser.next() { _ = value }
        }
    }
}
