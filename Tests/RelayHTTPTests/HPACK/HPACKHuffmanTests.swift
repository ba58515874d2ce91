import RelayHTTP
import RelayTestKit
import XCTest

final class HPACKHuffmanTests: XCTestCase {
    private func encode(_ text: String) -> [UInt8] {
        var buffer: [UInt8] = []
        HPACKHuffman.encode(text.utf8, into: &buffer)
        return buffer
    }

    private func decode(_ bytes: [UInt8]) throws -> [UInt8] {
        var output: [UInt8] = []
        try HPACKHuffman.decode(bytes, range: 0..<bytes.count, into: &output)
        return output
    }

    func testTableIsCanonicalAndComplete() {
        let codes = HPACKHuffmanTable.codes
        XCTAssertEqual(codes.count, 257)
        // Canonical: in (length, symbol) order each code is the previous plus one, shifted to its length.
        let order = codes.indices.sorted { (codes[$0].length, $0) < (codes[$1].length, $1) }
        var expected: UInt32 = 0
        var previousLength = codes[order[0]].length
        for symbol in order {
            let length = codes[symbol].length
            expected <<= UInt32(length - previousLength)
            previousLength = length
            XCTAssertEqual(codes[symbol].code, expected, "symbol \(symbol)")
            expected += 1
        }
        // Complete: the Kraft sum is exactly 1, so every bit string is a code or a prefix of one.
        let kraft = codes.reduce(0) { $0 + (UInt64(1) << (30 - UInt64($1.length))) }
        XCTAssertEqual(kraft, UInt64(1) << 30)
        XCTAssertEqual(codes[HPACKHuffmanTable.eos].code, 0x3FFF_FFFF)
        XCTAssertEqual(codes[HPACKHuffmanTable.eos].length, 30)
    }

    func testAppendixCStrings() throws {
        let cases: [(text: String, hex: String)] = [
            ("www.example.com", "f1e3 c2e5 f23a 6ba0 ab90 f4ff"),
            ("no-cache", "a8eb 1064 9cbf"),
            ("custom-key", "25a8 49e9 5ba9 7d7f"),
            ("custom-value", "25a8 49e9 5bb8 e8b4 bf"),
            ("302", "6402"),
            ("private", "aec3 771a 4b"),
            ("Mon, 21 Oct 2013 20:13:21 GMT", "d07a be94 1054 d444 a820 0595 040b 8166 e082 a62d 1bff"),
            ("https://www.example.com", "9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3"),
            ("gzip", "9bd9 ab"),
        ]
        for item in cases {
            XCTAssertEqual(hexString(encode(item.text)), hexString(hexBytes(item.hex)), item.text)
            XCTAssertEqual(HPACKHuffman.encodedLength(item.text.utf8), hexBytes(item.hex).count, item.text)
            XCTAssertEqual(try decode(hexBytes(item.hex)), Array(item.text.utf8), item.text)
        }
    }

    func testEveryOctetRoundTrips() throws {
        let all = [UInt8](0...255)
        for symbol in all {
            var buffer: [UInt8] = []
            HPACKHuffman.encode([symbol], into: &buffer)
            XCTAssertEqual(try decode(buffer), [symbol], "symbol \(symbol)")
        }
        var buffer: [UInt8] = []
        HPACKHuffman.encode(all + all.reversed(), into: &buffer)
        XCTAssertEqual(try decode(buffer), all + all.reversed())
        XCTAssertEqual(try decode([]), [])
    }

    func testPseudoRandomStringsRoundTrip() throws {
        var generator = SplitMix64(seed: 7541)
        for length in 0..<300 {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            var buffer: [UInt8] = []
            HPACKHuffman.encode(bytes, into: &buffer)
            XCTAssertEqual(buffer.count, HPACKHuffman.encodedLength(bytes))
            XCTAssertEqual(try decode(buffer), bytes, "length \(length)")
        }
    }

    func testMalformedStringsAreRejected() {
        let cases: [(bytes: [UInt8], reason: HPACKError.Reason, why: String)] = [
            ([0xFF, 0xFF, 0xFF, 0xFF], .huffmanEOS, "30 ones is EOS"),
            ([0x1F, 0xFF, 0xFF, 0xFF, 0xFF], .huffmanEOS, "'a' then EOS"),
            ([0x1F, 0xFF], .huffmanPaddingTooLong, "'a' (00011) then 11 one bits"),
            ([0xFF], .huffmanPaddingTooLong, "8 one bits of padding alone"),
            ([0x18], .huffmanPaddingNotOnes, "'a' (00011) then 000"),
            ([0x1E], .huffmanPaddingNotOnes, "'a' then 110"),
            ([0x00], .huffmanPaddingNotOnes, "'0' (00000) then 000"),
            ([0xFE], .huffmanPaddingNotOnes, "seven ones then a zero is no EOS prefix"),
        ]
        for item in cases {
            XCTAssertThrowsError(try decode(item.bytes), item.why) { error in
                XCTAssertEqual((error as? HPACKError)?.reason, item.reason, item.why)
            }
        }
    }

    func testSevenOnesOfPaddingAreAccepted() throws {
        // '0' is 00000; 3 ones pad the first octet. A whole octet of padding is 8 bits: too long.
        XCTAssertEqual(try decode([0x07]), Array("0".utf8))
        XCTAssertThrowsError(try decode([0x07, 0xFF]))
    }
}
