import RelayTestKit
import XCTest

@testable import RelayCore

final class IdentifierGeneratorTests: XCTestCase {
    /// Hands out the bytes it was given, in order, then zeros.
    private final class FixedBytes: IdentifierGenerator, @unchecked Sendable {
        private var bytes: [UInt8]
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        func randomBytes(_ count: Int) -> [UInt8] {
            let taken = Array(bytes.prefix(count))
            bytes.removeFirst(taken.count)
            return taken + Array(repeating: 0, count: count - taken.count)
        }
    }

    /// Every byte's two digits in their places, the dashes at 8, 13, 18 and 23, and the version
    /// and variant bits set over what was drawn.
    func testUUIDWritesTheDrawnBytesInOrder() {
        let rows: [([UInt8], String)] = [
            (Array(0..<16), "00010203-0405-4607-8809-0a0b0c0d0e0f"),
            (Array(repeating: 0xFF, count: 16), "ffffffff-ffff-4fff-bfff-ffffffffffff"),
            (Array(repeating: 0, count: 16), "00000000-0000-4000-8000-000000000000"),
            (
                [0x9A, 0xB1, 0xC2, 0xD3, 0xE4, 0xF5, 0x16, 0x27, 0x38, 0x49, 0x5A, 0x6B, 0x7C, 0x8D, 0x9E, 0xAF],
                "9ab1c2d3-e4f5-4627-b849-5a6b7c8d9eaf"
            ),
        ]
        for (bytes, expected) in rows {
            let uuid = FixedBytes(bytes).uuid()
            XCTAssertEqual(uuid, expected)
            XCTAssertEqual(try APNsMessageID.parse(uuid).get().rawValue, expected)
        }
    }

    /// The word-at-a-time form against one written byte by byte from the standard library's
    /// digits, for 2,000 drawn byte strings: every byte value at every place, the version and
    /// variant bits set over what was drawn.
    func testUUIDMatchesItsBytesWrittenOneByOne() {
        var generator = SplitMix64(seed: 0x7575_6964)
        for round in 0..<2000 {
            var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if round < 256 { bytes[round % 16] = UInt8(round) }
            var expected = bytes
            expected[6] = expected[6] & 0x0F | 0x40
            expected[8] = expected[8] & 0x3F | 0x80
            var text = ""
            for (index, byte) in expected.enumerated() {
                if [4, 6, 8, 10].contains(index) { text += "-" }
                text += (byte < 16 ? "0" : "") + String(byte, radix: 16)
            }
            XCTAssertEqual(FixedBytes(bytes).uuid(), text, "\(bytes)")
        }
    }

    /// Four bytes' digits in one word, the first byte's high digit lowest.
    func testDigitsOfAWord() {
        func text(_ word: UInt64) -> String {
            withUnsafeBytes(of: word.littleEndian) { String(decoding: $0, as: UTF8.self) }
        }
        XCTAssertEqual(text(Hex.digits(of: 0x7856_3412)), "12345678")
        XCTAssertEqual(text(Hex.digits(of: 0xEFCD_AB90)), "90abcdef")
        XCTAssertEqual(text(Hex.digits(of: 0)), "00000000")
        XCTAssertEqual(text(Hex.digits(of: 0xFFFF_FFFF)), "ffffffff")
    }

    /// Checked against the standard library's own formatting: every byte value at every place of
    /// a word, in lists of every length up to nine (whole words and the one to three left over).
    func testEncodeWritesEachBytesDigits() {
        func expected(_ bytes: [UInt8]) -> String {
            bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        }
        XCTAssertEqual(Hex.encode([]), "")
        for count in 1...9 {
            for place in 0..<count {
                for byte in 0..<256 {
                    var bytes = (0..<count).map { UInt8(truncatingIfNeeded: 0xA5 &+ 37 &* $0) }
                    bytes[place] = UInt8(byte)
                    XCTAssertEqual(Hex.encode(bytes), expected(bytes), "\(bytes)")
                }
            }
        }
    }
}
