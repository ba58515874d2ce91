import XCTest

@testable import RelayCore

final class TokenKeyTests: XCTestCase {
    /// Keys are told apart by their whole text, though only 16 bytes are hashed: tokens that share
    /// their first 16 digits (or all but the last) are still different keys.
    func testKeysSharingTheirHashedBytesStayDistinct() {
        let shared = String(repeating: "a", count: 16)
        let tokens = [
            shared + String(repeating: "0", count: 48), shared + String(repeating: "0", count: 47) + "1",
            shared + String(repeating: "f", count: 64), shared, "abc", "",
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

    /// A token bridged or sliced into a new string is the same key.
    func testEqualTextFromAnotherStorageIsTheSameKey() {
        let token = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
        let copy = String(Substring(token + "x").dropLast())
        XCTAssertEqual(TokenKey(token), TokenKey(copy))
        XCTAssertEqual(TokenKey(token).hashValue, TokenKey(copy).hashValue)
    }
}
