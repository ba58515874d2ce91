import RelayCore
import RelayJSON
import XCTest

final class ActivityUpdateTests: XCTestCase {
    func testParsesTheAppAPIBody() throws {
        let full: JSONValue = [
            "contentState": ["eta": 5], "staleDate": 100, "relevanceScore": 2.5, "alert": ["title": "Hi"],
            "timestamp": 99,
        ]
        let update = try ActivityUpdate(json: full)
        XCTAssertEqual(
            update,
            ActivityUpdate(
                contentState: ["eta": 5], staleDate: 100, relevanceScore: 2.5, alert: ["title": "Hi"], timestamp: 99))
        XCTAssertEqual(update.json, full)
        XCTAssertEqual(
            try ActivityUpdate(json: ["contentState": [:], "staleDate": nil]), ActivityUpdate(contentState: [:]))
    }

    func testRejectsBadBodiesNamingTheKey() {
        let table: [(json: JSONValue, key: String)] = [
            ([:], "contentState"), (["contentState": 5], "contentState"),
            (["contentState": [:], "alert": "x"], "alert"),
            (["contentState": [:], "staleDate": "soon"], "staleDate"), (["contentState": [:], "extra": 1], "extra"),
            (["contentState": [:], "relevanceScore": .double(.nan)], "relevanceScore"), ("text", ""),
        ]
        for row in table {
            XCTAssertThrowsError(try ActivityUpdate(json: row.json)) { error in
                XCTAssertEqual((error as? JSONFieldError)?.key, row.key, "\(row.json)")
            }
        }
    }

    func testOnlyPriorityTenPushesDrawOnTheBudget() {
        let table: [(source: ActivityUpdateSource, draws: Bool)] = [
            (.app, false), (.push(priority: 10), true), (.push(priority: 5), false), (.push(priority: 1), false),
        ]
        for row in table { XCTAssertEqual(row.source.drawsOnBudget, row.draws, "\(row.source)") }
    }

    func testOutcomesMapToPushRecordWords() {
        let table: [(outcome: ActivityUpdateOutcome, word: String)] = [
            (.applied, "applied"), (.deferred(until: 1, reason: .budget), "deferred"),
            (.coalesced(until: 1, reason: .lowPriority), "deferred"), (.ignoredStale(last: 1), "ignored"),
            (.rejectedEnded(endedAt: 1), "ignored"), (.refusedOverBudget(retryAt: 1), "rejected"),
            (.rejectedTooLarge(bytes: 5000, limit: 4096), "rejected"),
            (.rejectedInvalid(field: "timestamp"), "rejected"),
        ]
        for row in table { XCTAssertEqual(row.outcome.recordOutcome, row.word, "\(row.outcome)") }
    }
}
