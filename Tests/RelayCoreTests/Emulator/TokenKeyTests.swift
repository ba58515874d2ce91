import XCTest

@testable import RelayCore

final class TokenKeyTests: XCTestCase {
    /// Keys are told apart by their whole text, though only their start is hashed: tokens that
    /// share their first 32 digits (the 16 packed bytes hashed) or all but the last are still
    /// different keys, in the packed form (80 lowercase hex digits) and in the text form.
    func testKeysSharingTheirHashedBytesStayDistinct() {
        let shared = String(repeating: "a", count: 32)
        let tokens = [
            shared + String(repeating: "0", count: 48), shared + String(repeating: "0", count: 47) + "1",
            shared + String(repeating: "f", count: 48), shared + String(repeating: "0", count: 32),
            shared + String(repeating: "0", count: 31) + "1", shared, "abc", "",
        ]
        var table: [TokenKey: Int] = [:]
        for (index, token) in tokens.enumerated() { table[TokenKey(token)] = index }
        XCTAssertEqual(table.count, tokens.count)
        for (index, token) in tokens.enumerated() {
            XCTAssertEqual(table[TokenKey(token)], index, token)
            XCTAssertEqual(TokenKey(token).hashValue, TokenKey(String(token)).hashValue, token)
        }
        XCTAssertNil(table[TokenKey(shared + "0")])
    }

    /// Every digit of an issued token counts: changing any one of the 80 to any other hex digit
    /// gives another key, and the key a push makes from its checked token (`lowercaseHex`) is the
    /// one the table stored.
    func testEveryDigitOfAnIssuedTokenCounts() {
        var generator = SplitMix64(seed: 0x6469_6769)
        let digits = Array("0123456789abcdef".utf8)
        for _ in 0..<20 {
            let bytes = (0..<TokenKey.issuedDigits).map { _ in digits.randomElement(using: &generator)! }
            let token = String(decoding: bytes, as: UTF8.self)
            let key = TokenKey(token)
            XCTAssertEqual(TokenKey(lowercaseHex: token), key)
            for position in bytes.indices {
                for digit in digits where digit != bytes[position] {
                    var changed = bytes
                    changed[position] = digit
                    let other = String(decoding: changed, as: UTF8.self)
                    XCTAssertNotEqual(TokenKey(other), key, "digit \(position) changed to \(Character(.init(digit)))")
                }
            }
        }
    }

    /// Eight digits pack into 32 bits, a nibble each, the first digit lowest.
    func testDigitsPackANibbleEach() {
        func word(_ text: String) -> UInt64 {
            Array(text.utf8).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
        }
        XCTAssertEqual(TokenKey.packed(word("01234567")), 0x7654_3210)
        XCTAssertEqual(TokenKey.packed(word("89abcdef")), 0xFEDC_BA98)
        XCTAssertEqual(TokenKey.packed(word("00000000")), 0)
        XCTAssertEqual(TokenKey.packed(word("ffffffff")), 0xFFFF_FFFF)
        XCTAssertEqual(TokenKey.packed(word("f0000009")), 0x9000_000F)
    }

    /// Text of 80 characters that are not all lowercase hex digits keeps the text form: it is
    /// never equal to a token of other text, though digits and letters share their low nibbles
    /// ('A' and 'a', 'q' and '1').
    func testOtherTextOfIssuedLengthIsItsOwnKey() {
        let lowercase = String(repeating: "a", count: 80)
        let pairs = [
            (String(repeating: "A", count: 80), lowercase),
            (String(repeating: "q", count: 80), String(repeating: "1", count: 80)),
            (String(repeating: "a", count: 79) + "A", lowercase),
            (String(repeating: "a", count: 79) + "g", String(repeating: "a", count: 79) + "7"),
        ]
        for (text, lookalike) in pairs {
            XCTAssertNotEqual(TokenKey(text), TokenKey(lookalike), text)
            XCTAssertEqual(TokenKey(text), TokenKey(String(Substring(text + "x").dropLast())), text)
        }
    }

    /// The hash the table uses (`_rawHashValue(seed:)`, no `Hasher`) spreads random tokens over
    /// the low bits that pick a bucket about as well as random numbers would (4,096 random values
    /// fill ~2,589 of 4,096 buckets), whatever the table's seed, and depends on the seed.
    func testTheTablesHashSpreadsRandomTokens() {
        var generator = SplitMix64(seed: 0x70_6B65)
        let tokens = (0..<4096).map { _ in
            String((0..<80).map { _ in "0123456789abcdef".randomElement(using: &generator)! })
        }
        for seed in [0, 1, -1, 0x5EED_5EED] {
            let buckets = Set(tokens.map { TokenKey($0)._rawHashValue(seed: seed) & 4095 })
            XCTAssertGreaterThan(buckets.count, 2400, "seed \(seed)")
        }
        let key = TokenKey(tokens[0])
        XCTAssertNotEqual(key._rawHashValue(seed: 1), key._rawHashValue(seed: 2))
        XCTAssertEqual(key._rawHashValue(seed: 7), TokenKey(String(tokens[0]))._rawHashValue(seed: 7))
    }

    /// A token bridged or sliced into a new string is the same key, in both forms.
    func testEqualTextFromAnotherStorageIsTheSameKey() {
        for token in [
            "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        ] {
            let copy = String(Substring(token + "x").dropLast())
            XCTAssertEqual(TokenKey(token), TokenKey(copy))
            XCTAssertEqual(TokenKey(token).hashValue, TokenKey(copy).hashValue)
        }
    }
}
