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
        let line = String(decoding: RelayLog.line(at: 1_767_225_600.25, .info, "push", ["status": "200"]), as: UTF8.self)
        XCTAssertEqual(line, "2026-01-01T00:00:00.250Z INFO push status=200\n")
    }
}
