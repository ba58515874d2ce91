import RelayJSON
import XCTest

final class JSONObjectTests: XCTestCase {
    func testMembersAreKeptInByteOrderWhateverOrderTheyCameIn() {
        let object: JSONObject = ["b": 2, "a": 1, "B": 0, "ab": 3, "é": 4]
        XCTAssertEqual(object.keys, ["B", "a", "ab", "b", "é"])
        XCTAssertEqual(JSONValue.object(object).jsonString, #"{"B":0,"a":1,"ab":3,"b":2,"é":4}"#)
    }

    func testARepeatedKeyKeepsItsLastValue() {
        let object = JSONObject(members: [("x", 1), ("y", 2), ("x", 3), ("a", 0), ("x", 4)])
        XCTAssertEqual(object.keys, ["a", "x", "y"])
        XCTAssertEqual(object["x"], 4)
    }

    func testSettingInsertsReplacesAndRemoves() {
        var object: JSONObject = ["m": 1]
        object["z"] = 2
        object["a"] = 3
        object["m"] = "one"
        XCTAssertEqual(object.keys, ["a", "m", "z"])
        XCTAssertEqual(object["m"], "one")
        object["a"] = nil
        XCTAssertEqual(object.removeValue(forKey: "z"), 2)
        XCTAssertNil(object.removeValue(forKey: "z"))
        object["absent"] = nil
        XCTAssertEqual(object, ["m": "one"])
    }

    func testLookupFindsEveryKeyOfALargeObject() {
        let keys = (0..<200).map { "key-\(($0 * 7919) % 1000)" }
        let object = JSONObject(members: keys.enumerated().map { (key: $0.element, value: .int(Int64($0.offset))) })
        XCTAssertEqual(object.count, 200)
        for (offset, key) in keys.enumerated() { XCTAssertEqual(object[key], .int(Int64(offset)), key) }
        XCTAssertNil(object["key-1"])
        XCTAssertEqual(object.keys, object.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
    }

    func testMergingAndMappingKeepTheOrder() {
        let base: JSONObject = ["a": 1, "c": 3]
        XCTAssertEqual(base.merging(["b": 2, "c": 30]), ["a": 1, "b": 2, "c": 30])
        XCTAssertEqual(base.mapValues { .string($0.jsonString) }, ["a": "1", "c": "3"])
        XCTAssertEqual(JSONObject(["z": 1, "y": 2]).keys, ["y", "z"])
        XCTAssertEqual(base.dictionary, ["a": 1, "c": 3])
    }

    func testEqualObjectsHashEqually() {
        let left: JSONObject = ["a": [1, 2], "b": ["c": nil]]
        let right = JSONObject(members: [("b", ["c": nil]), ("a", [1, 2])])
        XCTAssertEqual(left, right)
        XCTAssertEqual(left.hashValue, right.hashValue)
        XCTAssertNotEqual(left, ["a": [1, 2]])
        XCTAssertNotEqual(left, ["a": [1, 2], "b": ["c": 0]])
    }
}
