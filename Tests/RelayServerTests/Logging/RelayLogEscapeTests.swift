import Foundation
import RelayCore
import XCTest

@testable import RelayServer

/// No logged value can act on a terminal: every control character and every non-printable
/// character is escaped, in text lines and in JSON lines, and JSON lines are valid JSON.
final class RelayLogEscapeTests: XCTestCase {
    override func tearDown() { RelayLog.setFormat(.text) }

    /// Every C0 control, DEL, every C1 control, and format, separator, private-use and unassigned
    /// characters.
    private static let unprintable: [Unicode.Scalar] = {
        let controls: [UInt32] = Array(0...0x1F) + [0x7F] + Array(0x80...0x9F)
        let others: [UInt32] = [0x200B, 0x200E, 0x202E, 0x2028, 0x2029, 0xFEFF, 0xE000, 0x10FFFD, 0xE0001, 0x0378]
        return (controls + others).compactMap(Unicode.Scalar.init)
    }()

    private func line(_ value: String) -> String {
        String(decoding: RelayLog.line(at: 1_767_225_600, .info, "push", ["path": value]), as: UTF8.self)
    }

    func testTextLinesEscapeEveryUnprintableCharacter() {
        for scalar in Self.unprintable {
            let value = "a" + String(scalar) + "b"
            let text = line(value)
            XCTAssertFalse(
                text.dropLast().unicodeScalars.contains(scalar), "U+\(String(scalar.value, radix: 16)) raw in \(text)")
            XCTAssertTrue(text.hasSuffix("\"\n"), "quoted: \(text)")
        }
        XCTAssertTrue(line("\u{1B}[31m\u{0}\t").contains(#"path="\x1b[31m\x00\t""#))
        XCTAssertTrue(line("a\u{9B}b\u{202E}c").contains(#"path="a\x9bb\u{202e}c""#))
        XCTAssertTrue(line(#"back\slash"#).contains(#"path="back\\slash""#), "a backslash is escaped, not ambiguous")
        // Printable text outside ASCII stays readable.
        XCTAssertTrue(line("café ✓").contains(#"path="café ✓""#))
        XCTAssertTrue(line("plain-value").hasSuffix(" path=plain-value\n"))
    }

    func testJSONLinesAreValidAndEscapeEveryUnprintableCharacter() throws {
        RelayLog.setFormat(.json)
        for scalar in Self.unprintable + ["\"", "\\", "é"] {
            let value = "a" + String(scalar) + "b"
            let text = line(value)
            if Self.unprintable.contains(scalar) {
                XCTAssertFalse(
                    text.dropLast().unicodeScalars.contains(scalar),
                    "U+\(String(scalar.value, radix: 16)) raw in \(text)")
            }
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
            XCTAssertEqual(object["path"] as? String, value, "the value reads back exactly")
        }
        let numbers = String(
            decoding: RelayLog.line(at: 1_767_225_600.25, .warning, "push") { line in
                line.add("conn", 7)
                line.add("apnsId", "A-1")
            }, as: UTF8.self)
        XCTAssertEqual(
            numbers,
            #"{"time":"2026-01-01T00:00:00.250Z","level":"warning","event":"push","conn":7,"apnsId":"A-1"}"# + "\n")
    }
}
