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

    /// A token bridged or sliced into a new string is the same key.
    func testEqualTextFromAnotherStorageIsTheSameKey() {
        let token = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
        let copy = String(Substring(token + "x").dropLast())
        XCTAssertEqual(TokenKey(token), TokenKey(copy))
        XCTAssertEqual(TokenKey(token).hashValue, TokenKey(copy).hashValue)
    }
}
