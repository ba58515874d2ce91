import RelayHTTP
import XCTest

final class HPACKIntegerTests: XCTestCase {
    private func encoded(_ value: Int, prefix: Int, flags: UInt8 = 0) -> [UInt8] {
        var buffer: [UInt8] = []
        HPACKInteger.encode(value, prefixBits: prefix, flags: flags, into: &buffer)
        return buffer
    }

    func testEncodingMatchesRFCAndBoundaries() {
        let cases: [(value: Int, prefix: Int, bytes: [UInt8])] = [
            (10, 5, [0x0A]),  // C.1.1
            (1337, 5, [0x1F, 0x9A, 0x0A]),  // C.1.2: 31 + 154 - 128 + 10 * 128
            (42, 8, [0x2A]),  // C.1.3
            (30, 5, [0x1E]),  // largest value inside a 5-bit prefix
            (31, 5, [0x1F, 0x00]),  // prefix full: a zero continuation follows
            (31 + 127, 5, [0x1F, 0x7F]),
            (31 + 128, 5, [0x1F, 0x80, 0x01]),
            (0, 1, [0x00]),
            (1, 1, [0x01, 0x00]),
            (255, 8, [0xFF, 0x00]),
            (Int(UInt32.max), 5, [0x1F, 0xE0, 0xFF, 0xFF, 0xFF, 0x0F]),
        ]
        for item in cases {
            XCTAssertEqual(encoded(item.value, prefix: item.prefix), item.bytes, "\(item.value)/\(item.prefix)")
            var index = 0
            XCTAssertEqual(try HPACKInteger.decode(item.bytes, at: &index, prefixBits: item.prefix), item.value)
            XCTAssertEqual(index, item.bytes.count)
        }
    }

    func testFlagsAreKeptAndIgnoredOnDecode() throws {
        XCTAssertEqual(encoded(5, prefix: 6, flags: 0x40), [0x45])
        var index = 0
        XCTAssertEqual(try HPACKInteger.decode([0xC5], at: &index, prefixBits: 6), 5)
    }

    func testRoundTripsAcrossPrefixesAndMagnitudes() throws {
        for prefix in 1...8 {
            for value in [0, 1, 126, 127, 128, 255, 256, 16_383, 16_384, 1 << 21, 1 << 28, Int(UInt32.max)] {
                let bytes = encoded(value, prefix: prefix) + [0xAA]
                var index = 0
                XCTAssertEqual(try HPACKInteger.decode(bytes, at: &index, prefixBits: prefix), value)
                XCTAssertEqual(index, bytes.count - 1, "stops before the next octet")
            }
        }
    }

    func testMalformedIntegersAreRejected() {
        let cases: [(bytes: [UInt8], prefix: Int, reason: HPACKError.Reason)] = [
            ([], 5, .truncated),
            ([0x1F], 5, .truncated),  // prefix full, no continuation
            ([0x1F, 0x80], 5, .truncated),  // continuation bit set on the last octet
            ([0x1F, 0xE1, 0xFF, 0xFF, 0xFF, 0x0F], 5, .integerOverflow),  // 2^32
            ([0x1F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], 5, .integerOverflow),  // far beyond 32 bits
            ([0x1F, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00], 5, .integerOverflow),  // six continuation octets
            ([0xFF] + [UInt8](repeating: 0xFF, count: 64), 8, .integerOverflow),
        ]
        for item in cases {
            var index = 0
            XCTAssertThrowsError(try HPACKInteger.decode(item.bytes, at: &index, prefixBits: item.prefix)) { error in
                XCTAssertEqual((error as? HPACKError)?.reason, item.reason, "\(item.bytes)")
            }
        }
    }
}
