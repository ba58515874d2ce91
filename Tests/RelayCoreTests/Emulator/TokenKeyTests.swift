import RelayTestKit
import XCTest

@testable import RelayCore

final class TokenKeyTests: XCTestCase {
    /// Keys are told apart by their whole text: tokens that share their first 32 digits or all
    /// but the last are different keys, whatever their length.
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
    /// gives another key.
    func testEveryDigitOfAnIssuedTokenCounts() {
        var generator = SplitMix64(seed: 0x6469_6769)
        let digits = Array("0123456789abcdef".utf8)
        for _ in 0..<20 {
            let bytes = (0..<80).map { _ in digits.randomElement(using: &generator)! }
            let token = String(decoding: bytes, as: UTF8.self)
            let key = TokenKey(token)
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

    /// Text of 80 characters that are not all lowercase hex digits is never equal to a token of
    /// other text, though digits and letters share their low nibbles ('A' and 'a', 'q' and '1').
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
