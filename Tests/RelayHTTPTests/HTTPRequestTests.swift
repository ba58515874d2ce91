import RelayHTTP
import XCTest

final class HTTPRequestTests: XCTestCase {
    func testTargetSplitsAtFirstQuestionMark() {
        let parts = HTTPRequest.splitTarget("/v1/pushes?token=ab?c&limit=5")
        XCTAssertEqual(parts.path, "/v1/pushes")
        XCTAssertEqual(parts.query, "token=ab?c&limit=5")
    }

    func testQueryItemsArePercentDecoded() {
        let request = HTTPRequest(method: "GET", path: "/", query: "a=x%20y&b=1+2&c=%zz")
        XCTAssertEqual(request.queryValue("a"), "x y")
        XCTAssertEqual(request.queryValue("b"), "1 2")
        XCTAssertEqual(request.queryValue("c"), "%zz")
    }

    func testHeaderNamesAreCaseInsensitive() {
        var headers = HTTPHeaders([("Content-Type", "application/json")])
        XCTAssertEqual(headers["content-type"], "application/json")
        headers.set("CONTENT-TYPE", "text/plain")
        XCTAssertEqual(headers.values("content-type"), ["text/plain"])
    }
}
