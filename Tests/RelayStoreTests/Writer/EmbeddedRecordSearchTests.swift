import XCTest

@testable import RelayStore

/// `EmbeddedRecord.offset(of:in:)` answers as a plain search does: the first place, or none.
final class EmbeddedRecordSearchTests: XCTestCase {
    /// The first offset of `needle` in `haystack`, position by position.
    private func naive(_ needle: [UInt8], _ haystack: [UInt8]) -> Int? {
        guard !needle.isEmpty, needle.count <= haystack.count else { return nil }
        for start in 0...(haystack.count - needle.count) where Array(haystack[start..<start + needle.count]) == needle {
            return start
        }
        return nil
    }

    private func search(_ needle: [UInt8], _ haystack: [UInt8]) -> Int? {
        needle.withUnsafeBytes { needle in haystack.withUnsafeBytes { EmbeddedRecord.offset(of: needle, in: $0) } }
    }

    func testAgreesWithAPlainSearch() {
        // A small alphabet, so first bytes, last bytes and near misses repeat often.
        var state: UInt64 = 0x5EED
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % bound
        }
        let alphabet = Array("{}a\"".utf8)
        for _ in 0..<5_000 {
            let haystack = (0..<next(40)).map { _ in alphabet[next(alphabet.count)] }
            var needle = (0..<(1 + next(6))).map { _ in alphabet[next(alphabet.count)] }
            // Often a piece of the haystack itself, at its start, middle or end.
            if !haystack.isEmpty, next(2) == 0 {
                let start = next(haystack.count)
                needle = Array(haystack[start..<min(haystack.count, start + 1 + next(8))])
            }
            XCTAssertEqual(search(needle, haystack), naive(needle, haystack), "\(needle) in \(haystack)")
        }
    }

    func testEdges() {
        let record = Array(#"{"a":1}"#.utf8)
        XCTAssertEqual(search(record, record), 0)
        XCTAssertEqual(search(record, Array(#"{"push":{"a":1}}"#.utf8)), 8)
        XCTAssertNil(search(record, Array(#"{"a":1"#.utf8)))
        XCTAssertNil(search(record, []))
        XCTAssertNil(search([], record))
        XCTAssertEqual(search(Array("}".utf8), record), 6)
    }
}
