import XCTest

@testable import RelayCore

final class ASCIIKeySetTests: XCTestCase {
    private let set = ASCIIKeySet([
        "aps", "timestamp", "event", "content-state", "stale-date", "apns-push-type", "a", "apns-priority",
        "apns-pri", "apns-prj", "dismissal-date", "",
    ])

    func testFindsEveryNameAtItsPosition() {
        let names = [
            "aps", "timestamp", "event", "content-state", "stale-date", "apns-push-type", "a", "apns-priority",
            "apns-pri", "apns-prj", "dismissal-date", "",
        ]
        for (position, name) in names.enumerated() {
            XCTAssertEqual(set.index(of: name), position, name)
            XCTAssertEqual(Array(name.utf8).withUnsafeBufferPointer { set.index(of: $0) }, position, name)
        }
    }

    func testOtherTextIsNone() {
        let rows: [(String, String)] = [
            ("ap", "a prefix of a name"),
            ("apsx", "a name with a byte more"),
            ("apt", "the last byte differs"),
            ("bps", "the first byte differs"),
            ("APS", "case matters"),
            ("timestamq", "nine bytes, the ninth differs"),
            ("content-statE", "past the first eight bytes, the last differs"),
            ("content-stat", "past the first eight bytes, one short"),
            ("content-states", "past the first eight bytes, one more"),
            ("apns-pr", "shorter than the eight-byte names it begins"),
            ("apns-prk", "eight bytes, the last differs"),
            ("a\0", "a zero byte where a shorter name ends"),
            ("aps\0\0\0\0\0", "zero bytes fill the first eight"),
            ("dismissal-date-and-more-than-sixteen", "longer than any name"),
        ]
        for (text, why) in rows {
            XCTAssertNil(set.index(of: text), why)
            XCTAssertNil(Array(text.utf8).withUnsafeBufferPointer { set.index(of: $0) }, why)
        }
    }
}

extension ASCIIKeySetTests {
    /// Every length from 0 to 24 bytes: each name is found, and a text that differs from it in any
    /// one byte is not (names of one length differ from each other only in that byte).
    func testEveryLengthAndEveryByteCounts() {
        for length in 0...24 {
            let name = String(repeating: "k", count: length)
            var names = [name]
            for offset in 0..<length {
                var bytes = Array(name.utf8)
                bytes[offset] = UInt8(ascii: "m")
                names.append(String(decoding: bytes, as: UTF8.self))
            }
            let set = ASCIIKeySet(names)
            for (position, text) in names.enumerated() { XCTAssertEqual(set.index(of: text), position, text) }
            for offset in 0..<length {
                var bytes = Array(name.utf8)
                bytes[offset] = UInt8(ascii: "n")
                let text = String(decoding: bytes, as: UTF8.self)
                XCTAssertNil(set.index(of: text), text)
            }
            XCTAssertNil(set.index(of: name + "k"), "\(length + 1) bytes")
        }
    }
}
