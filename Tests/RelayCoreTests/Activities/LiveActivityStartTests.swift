import RelayCore
import RelayJSON
import XCTest

final class LiveActivityStartTests: XCTestCase {
    private let t0 = Fixture.t0

    func testStartSetsTheContractFields() {
        let activity = Fixture.activity()
        XCTAssertEqual(activity.state, .active)
        XCTAssertEqual(activity.startedAt, t0)
        XCTAssertEqual(activity.systemEndAt, t0 + 8 * Fixture.hour)
        XCTAssertEqual(activity.lastTimestamp, t0)
        XCTAssertEqual(activity.relevanceScore, 0)
        XCTAssertNil(activity.endedAt)
        XCTAssertNil(activity.dismissAt)
        XCTAssertNil(activity.pendingUpdate)
        XCTAssertEqual(activity.updateBudget.remaining(at: t0), 10)
        XCTAssertEqual(Fixture.activity(frequent: true).updateBudget.remaining(at: t0), 60)
    }

    func testStaleDateAtOrBeforeStartStartsStale() {
        let table: [(staleDate: UnixSeconds?, state: ActivityState)] = [
            (nil, .active), (t0 + 1, .active), (t0, .stale), (t0 - 60, .stale),
        ]
        for row in table {
            XCTAssertEqual(
                Fixture.activity(staleDate: row.staleDate).state, row.state, "\(String(describing: row.staleDate))")
        }
    }

    func testTimestampBecomesLastTimestamp() throws {
        let activity = try LiveActivity.start(
            id: "a", deviceId: "d", bundleId: "b", attributesType: "T", attributes: [:], contentState: [:],
            pushToken: "tok", channelId: "chan", timestamp: t0 - 5, rules: .defaults, at: t0)
        XCTAssertEqual(activity.lastTimestamp, t0 - 5)
        XCTAssertEqual(activity.pushToken, "tok")
        XCTAssertEqual(activity.channelId, "chan")
    }

    func testSizeLimitCountsAttributesAndContentState() throws {
        // {"a":""} is 8 bytes and {"c":""} is 8 bytes; each padding character adds one.
        let table: [(attributes: Int, content: Int, fits: Bool)] = [
            (4080, 0, true), (0, 4080, true), (2000, 2080, true), (4081, 0, false), (2000, 2081, false),
        ]
        for row in table {
            let attributes: JSONValue = ["a": .string(String(repeating: "x", count: row.attributes))]
            let content: JSONValue = ["c": .string(String(repeating: "y", count: row.content))]
            let start = {
                try LiveActivity.start(
                    id: "a", deviceId: "d", bundleId: "b", attributesType: "T", attributes: attributes,
                    contentState: content, rules: .defaults, at: self.t0)
            }
            if row.fits {
                XCTAssertNoThrow(try start(), "\(row)")
            } else {
                XCTAssertThrowsError(try start()) { error in
                    XCTAssertEqual(error as? ActivityError, .tooLarge(bytes: 4097, limit: 4096))
                }
            }
        }
    }

    func testInvalidValuesAreRejectedNamingTheField() {
        let table: [(type: String, stale: UnixSeconds?, score: Double?, field: String)] = [
            ("", nil, nil, "attributesType"), ("T", .nan, nil, "staleDate"), ("T", nil, .infinity, "relevanceScore"),
        ]
        for row in table {
            XCTAssertThrowsError(
                try LiveActivity.start(
                    id: "a", deviceId: "d", bundleId: "b", attributesType: row.type, attributes: [:], contentState: [:],
                    staleDate: row.stale, relevanceScore: row.score, rules: .defaults, at: t0)
            ) { error in
                guard case .invalidValue(let field, _, _)? = error as? ActivityError else {
                    return XCTFail("unexpected \(error)")
                }
                XCTAssertEqual(field, row.field)
            }
        }
    }

    func testOrderedByRelevanceThenStartTime() {
        let activities = [
            Fixture.activity(at: t0 + 3, relevance: 50, id: "c"),
            Fixture.activity(at: t0 + 1, relevance: nil, id: "e"),
            Fixture.activity(at: t0 + 2, relevance: 100, id: "b"),
            Fixture.activity(at: t0 + 1, relevance: 50, id: "d"),
            Fixture.activity(at: t0 + 5, relevance: 100, id: "a"),
            Fixture.activity(at: t0 + 1, relevance: 50, id: "cc"),
        ]
        XCTAssertEqual(LiveActivity.ordered(activities).map(\.id), ["b", "a", "cc", "d", "c", "e"])
    }
}
