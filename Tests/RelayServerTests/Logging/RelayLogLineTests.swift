import RelayCore
import XCTest

@testable import RelayServer

/// A log line is `<UTC time with milliseconds>Z LEVEL event key=value...`, values quoted when
/// they hold spaces, quotes, `=` or control characters.
final class RelayLogLineTests: XCTestCase {
    /// The line as it was first built, by concatenating Strings.
    private func reference(
        _ time: UnixSeconds, _ level: RelayLog.Level, _ event: String, _ fields: KeyValuePairs<String, String>
    ) -> String {
        var line = UTCDate.format(time)
        line.removeLast()
        let millis = Int((time - time.rounded(.down)) * 1000)
        line += "." + String(String(millis + 1000).dropFirst()) + "Z " + level.label + " " + event
        for (key, value) in fields { line += " " + key + "=" + RelayLog.quoted(value) }
        return line + "\n"
    }

    func testLinesMatchTheirFormat() {
        let times: [UnixSeconds] = [1_767_225_600, 1_767_225_600.0004, 1_767_225_600.05, 1_767_225_600.999_9, 0.5]
        let fieldSets: [KeyValuePairs<String, String>] = [
            [:],
            ["conn": "12", "stream": "3", "apnsId": "A-1", "status": "200", "reason": "-"],
            ["hint": "two words", "q": "say \"hi\"", "eq": "a=b", "empty": "", "nl": "a\nb", "é": "ü"],
        ]
        for time in times {
            for level in RelayLog.Level.allCases {
                for fields in fieldSets {
                    let line = String(decoding: RelayLog.line(at: time, level, "push", fields), as: UTF8.self)
                    XCTAssertEqual(line, reference(time, level, "push", fields))
                }
            }
        }
        let line = String(
            decoding: RelayLog.line(at: 1_767_225_600.25, .info, "push", ["status": "200"]), as: UTF8.self)
        XCTAssertEqual(line, "2026-01-01T00:00:00.250Z INFO push status=200\n")
    }

    /// One stamp kept across lines (as a loop's buffer keeps it) writes every time as a fresh one
    /// does: within a second, across seconds, days and years, and backwards.
    func testAKeptSecondStampWritesEachTimeAsAFreshOne() {
        var stamp = RelayLog.SecondStamp()
        let times: [UnixSeconds] = [
            1_767_225_599.999, 1_767_225_600.0, 1_767_225_600.5, 1_767_225_600.999, 1_767_225_601.001,
            1_767_311_999.9, 1_767_312_000.1, 1_767_225_600.25, 0.5, 0.75, 4_102_444_800.2,
        ]
        for time in times {
            var kept: [UInt8] = []
            RelayLog.write(at: time, .info, "push", to: &kept, seconds: &stamp) { line in line.add("status", "200") }
            let fresh = RelayLog.line(at: time, .info, "push", ["status": "200"])
            XCTAssertEqual(String(decoding: kept, as: UTF8.self), String(decoding: fresh, as: UTF8.self), "\(time)")
            XCTAssertEqual(String(decoding: kept, as: UTF8.self), reference(time, .info, "push", ["status": "200"]))
        }
    }

    /// Fields written in place make the line the field list makes, numbers in decimal.
    func testFieldsWrittenInPlaceMatchTheFieldList() {
        let numbers: [UInt64] = [0, 7, 9, 10, 99, 100, 1_234_567, UInt64(UInt32.max), UInt64.max]
        let texts = ["A-1", "-", "two words", "say \"hi\"", "a=b", "", "a\nb", "ü"]
        for time: UnixSeconds in [1_767_225_600.25, 0.5] {
            for number in numbers {
                for text in texts {
                    let inPlace = RelayLog.line(at: time, .info, "push") { line in
                        line.add("conn", number)
                        line.add("apnsId", text)
                        line.add("status", 200)
                    }
                    let listed = RelayLog.line(
                        at: time, .info, "push", ["conn": String(number), "apnsId": text, "status": "200"])
                    XCTAssertEqual(String(decoding: inPlace, as: UTF8.self), String(decoding: listed, as: UTF8.self))
                }
            }
        }
        let empty = RelayLog.line(at: 1_767_225_600.25, .warning, "tick") { _ in }
        XCTAssertEqual(String(decoding: empty, as: UTF8.self), "2026-01-01T00:00:00.250Z WARN tick\n")
    }
}
