import RelayHTTP
import XCTest

final class HTTPRequestTests: XCTestCase {
    func testTargetSplitsAtFirstQuestionMark() {
        let parts = HTTPRequest.splitTarget("/v1/pushes?token=ab?c&limit=5")
        XCTAssertEqual(parts.path, "/v1/pushes")
        XCTAssertEqual(parts.query, "token=ab?c&limit=5")
        for (target, path, query) in [
            ("", "", ""), ("?", "", ""), ("?a=1", "", "a=1"), ("/x?", "/x", ""), ("/é/ü?q=ö", "/é/ü", "q=ö"),
            ("/3/device/" + String(repeating: "ab", count: 40), "/3/device/" + String(repeating: "ab", count: 40), ""),
            ("/short", "/short", ""),
        ] {
            let parts = HTTPRequest.splitTarget(target)
            XCTAssertEqual(parts.path, path, target)
            XCTAssertEqual(parts.query, query, target)
        }
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
