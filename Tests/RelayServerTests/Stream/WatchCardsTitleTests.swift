import RelayCore
import RelayJSON
import RelayServer
import XCTest

/// An alarm's line shows the title iOS shows for its mode: the countdown presentation's while it
/// counts down, the paused one's while paused, the alert's otherwise.
final class WatchCardsTitleTests: XCTestCase {
    private func alarm(_ state: String, _ presentationState: JSONValue, titles: JSONObject) -> JSONValue {
        var presentation: JSONObject = [:]
        for (mode, title) in titles { presentation[mode] = ["title": title] }
        return [
            "id": "0123456789abcdef", "bundleId": "com.example.tea", "state": .string(state),
            "presentationState": presentationState, "presentation": .object(presentation),
        ]
    }

    func testTheTitleFollowsTheMode() {
        let counting: JSONValue = ["mode": "countdown", "totalCountdownDuration": 300, "fireDate": 1180]
        let paused: JSONValue = ["mode": "paused", "totalCountdownDuration": 300, "previouslyElapsedDuration": 60]
        let alert: JSONValue = ["mode": "alert", "time": ["hour": 7, "minute": 0]]
        let all: JSONObject = ["alert": "Tea is ready", "countdown": "Steeping", "paused": "Steeping paused"]
        let table: [(JSONValue, String, JSONObject, String)] = [
            (counting, "countdown", all, "\"Steeping\""),
            (paused, "paused", all, "\"Steeping paused\""),
            (alert, "alerting", all, "\"Tea is ready\""),
            (counting, "countdown", ["alert": "Tea is ready"], "\"Tea is ready\""),
        ]
        for (presentationState, state, titles, title) in table {
            let line = WatchCards.alarmLine(alarm(state, presentationState, titles: titles), now: 1000, ansi: false)
            XCTAssertTrue(line.hasSuffix("  " + title), line)
        }
    }
}
