import XCTest

@testable import RelayCore

final class ActivityDataSizeTests: XCTestCase {
    func testCountsCompactJSONBytes() {
        let table: [(value: JSONValue, json: String)] = [
            (nil, "null"), (true, "true"), (false, "false"),
            (0, "0"), (7, "7"), (-7, "-7"), (1_000_000, "1000000"),
            (.int(.max), "9223372036854775807"), (.int(.min), "-9223372036854775808"),
            (1.5, "1.5"), (.double(.nan), "null"),
            ("", #""""#), ("abc", #""abc""#), ("x\"y\\z", #""x\"y\\z""#), ("a\nb\t", #""a\nb\t""#),
            (.string("\u{1}"), #""\u0001""#), ("é€😀", "\"é€😀\""),
            ([], "[]"), ([1, 2, 3], "[1,2,3]"), ([:], "{}"),
            (["a": 1, "b": [true, nil, "x"]], #"{"a":1,"b":[true,null,"x"]}"#),
            (["k\"": ["n": []]], #"{"k\"":{"n":[]}}"#),
        ]
        for row in table {
            XCTAssertEqual(ActivityDataSize.bytes(of: row.value), row.json.utf8.count, row.json)
        }
    }
}
