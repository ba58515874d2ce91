import RelayJSON
import XCTest

final class JSONValueTests: XCTestCase {
    func testWholeDoublesReadAsIntegers() {
        XCTAssertEqual(JSONValue.double(3.0).int64Value, 3)
        XCTAssertNil(JSONValue.double(3.5).int64Value)
        XCTAssertEqual(JSONValue.number(1_700_000_000), .int(1_700_000_000))
    }

    func testSubscriptReadsObjectMembersOnly() {
        let value: JSONValue = ["aps": ["event": "update"]]
        XCTAssertEqual(value["aps"]?["event"], "update")
        XCTAssertNil(JSONValue.array([])["aps"])
    }
}
