import RelayCore
import XCTest

final class ContentStateShapeTests: XCTestCase {
    func testSameShapeHasNoDifferences() {
        XCTAssertEqual(
            ContentStateShape.differences(
                previous: ["score": ["home": 1, "away": 2], "period": "1st", "ratio": 0.5],
                new: ["score": ["home": 3, "away": 2], "period": "2nd", "ratio": 1]),
            [])
    }

    func testTypeKeyAndNestedDifferences() {
        let differences = ContentStateShape.differences(
            previous: ["score": ["home": 1, "away": 2], "period": "1st", "players": [["name": "A"]]],
            new: ["score": ["home": "1"], "clock": 30, "players": [["name": 7]]])
        XCTAssertEqual(
            differences,
            [
                "clock: new key (number)", "period: missing (was string)", "players[0].name: was string, now number",
                "score.away: missing (was number)", "score.home: was number, now string",
            ])
    }

    /// Keys are told apart by their bytes, as JSON does: the same keys in another order are the same
    /// shape, a canonically equivalent spelling is another key, and so is a key of the same count.
    func testKeysCompareByBytes() {
        XCTAssertEqual(
            ContentStateShape.differences(
                previous: JSONObject(members: [("b", 1), ("a", "x")]), new: JSONObject(members: [("a", "y"), ("b", 2)])),
            [])
        XCTAssertFalse(ContentStateShape.differences(previous: ["caf\u{E9}": 1], new: ["cafe\u{301}": 1]).isEmpty)
        XCTAssertEqual(
            ContentStateShape.differences(previous: ["a": 1, "b": 2], new: ["a": 1, "c": 2]),
            ["b: missing (was number)", "c: new key (number)"])
    }

    func testNullIsItsOwnType() {
        XCTAssertEqual(
            ContentStateShape.differences(previous: ["note": "x"], new: ["note": nil]), ["note: was string, now null"])
    }

    func testListIsBounded() {
        var previous: JSONObject = [:]
        for index in 0..<100 { previous["k\(index)"] = 1 }
        let differences = ContentStateShape.differences(previous: previous, new: [:])
        XCTAssertEqual(differences.count, ContentStateShape.maxDifferences + 1)
        XCTAssertEqual(differences.last, "... and \(100 - ContentStateShape.maxDifferences) more")
    }

    func testDeepNestingIsBounded() {
        var previous: JSONValue = 1
        var new: JSONValue = "x"
        for _ in 0..<1000 {
            previous = ["a": previous]
            new = ["a": new]
        }
        XCTAssertEqual(
            ContentStateShape.differences(previous: previous.objectValue ?? [:], new: new.objectValue ?? [:]), [])
    }

    func testHintListsTheDifferences() {
        let hint = APNsHint.contentStateShapeChanged(["a: was number, now string"])
        XCTAssertEqual(hint.code, "contentStateShapeChanged")
        XCTAssertTrue(hint.message.hasSuffix("a: was number, now string"))
    }
}
