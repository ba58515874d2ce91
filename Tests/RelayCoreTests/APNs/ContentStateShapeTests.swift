import RelayCore
import RelayJSON
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

    /// Fingerprints agree for the shapes `differences` finds equal, and tell apart the shapes it
    /// finds different.
    func testFingerprintsFollowTheShape() {
        func print(_ value: JSONValue) -> UInt64 { ContentStateShape.fingerprint(of: value) }
        let same: [(JSONValue, JSONValue)] = [
            (
                ["score": ["home": 1, "away": 2], "period": "1st"],
                ["period": "2nd", "score": ["away": 0, "home": 3.5]]
            ),
            (["players": [["name": "A"]]], ["players": [["name": "B"], ["name": 7]]]),
            (["note": nil], ["note": nil]),
        ]
        for (previous, new) in same {
            XCTAssertEqual(print(previous), print(new), "\(previous) and \(new)")
            XCTAssertEqual(ContentStateShape.differences(previous: previous.objectValue!, new: new.objectValue!), [])
        }
        let different: [(JSONValue, JSONValue)] = [
            (["a": 1], ["b": 1]), (["a": 1], ["a": "1"]), (["a": 1], ["a": nil]), (["a": 1], ["a": true]),
            (["a": 1], ["a": 1, "b": 1]), (["a": ["b": 1]], ["a": ["b": "1"]]), (["a": [1]], ["a": ["1"]]),
            (["a": [1]], ["a": ["x": 1]]), (["ab": 1, "c": 1], ["a": 1, "bc": 1]), ([:], ["a": [:]]),
        ]
        for (previous, new) in different {
            XCTAssertNotEqual(print(previous), print(new), "\(previous) and \(new)")
            XCTAssertNotEqual(ContentStateShape.differences(previous: previous.objectValue!, new: new.objectValue!), [])
        }
        // Objects past `maxDepth` are compared by their type only, by both.
        func nested(_ levels: Int, _ value: JSONValue) -> JSONValue {
            (0..<levels).reduce(value) { inner, _ in ["a": inner] }
        }
        let deepest = ContentStateShape.maxDepth
        XCTAssertNotEqual(print(nested(deepest, 1)), print(nested(deepest, "x")))
        XCTAssertNotEqual(
            ContentStateShape.differences(
                previous: nested(deepest, 1).objectValue!, new: nested(deepest, "x").objectValue!), [])
        XCTAssertEqual(print(nested(deepest + 1, 1)), print(nested(deepest + 1, "x")))
        XCTAssertEqual(
            ContentStateShape.differences(
                previous: nested(deepest + 1, 1).objectValue!, new: nested(deepest + 1, "x").objectValue!), [])
    }

    func testHintListsTheDifferences() {
        let hint = APNsHint.contentStateShapeChanged(["a: was number, now string"])
        XCTAssertEqual(hint.code, "contentStateShapeChanged")
        XCTAssertTrue(hint.message.hasSuffix("a: was number, now string"))
    }
}
