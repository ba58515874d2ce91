import XCTest

@testable import RelayCore

final class StringJoinedTests: XCTestCase {
    /// Joined pieces read as the interpolation they replace, whatever their lengths and scripts.
    func testJoinedEqualsTheInterpolation() {
        let pieces = [
            "", "a", "activity ", String(repeating: "x", count: 15), String(repeating: "y", count: 16),
            "7c1f0f6e-3a52-4f7d-9e61-0d0b6a9f3b21", "é ü 漢字 🚀", " has ended",
        ]
        for first in pieces {
            for second in pieces {
                for third in pieces {
                    let joined = String.joined(first, second, third, "!")
                    XCTAssertEqual(joined, "\(first)\(second)\(third)!")
                    XCTAssertEqual(joined.utf8.count, first.utf8.count + second.utf8.count + third.utf8.count + 1)
                }
            }
        }
        XCTAssertEqual(String.joined("a", "b"), "ab")
        XCTAssertEqual(String.joined("1", "2", "3", "4", "5"), "12345")
        XCTAssertEqual(String.joined("", ""), "")
    }
}
