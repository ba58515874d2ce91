import RelayJSON
import XCTest

@testable import RelayServer

/// `{"items": [...]}` made a page at a time: the same bytes as the whole list serialized at once,
/// pages of about `pageBytes`, and items gone by the time their page is made left out.
final class JSONItemPagesTests: XCTestCase {
    private static func item(_ key: String) -> JSONValue {
        ["id": .string(key), "pad": .string(String(repeating: "x", count: 300))]
    }

    private func pages(of source: JSONItemPages) -> [ResponsePage] {
        var pages: [ResponsePage] = []
        while true {
            let page = source.next()
            pages.append(page)
            if case .more = page { continue }
            return pages
        }
    }

    private func joined(_ pages: [ResponsePage]) -> [UInt8] {
        pages.flatMap { page -> [UInt8] in
            switch page {
            case .more(let bytes), .last(let bytes): bytes
            case .failed: []
            }
        }
    }

    func testPagesJoinToTheWholeListSerialized() {
        let keys = (0..<500).map { "item-\($0)" }
        let paged = pages(of: JSONItemPages(keys: keys) { slice in slice.map(Self.item) })
        let whole = JSONValue.object(["items": .array(keys.map(Self.item))]).serialized()
        XCTAssertEqual(joined(paged), whole)
        XCTAssertGreaterThan(paged.count, 5, "500 items of 330 bytes take several pages")
        for case .more(let bytes) in paged {
            XCTAssertGreaterThanOrEqual(bytes.count, JSONItemPages.pageBytes)
            XCTAssertLessThan(bytes.count, JSONItemPages.pageBytes + JSONItemPages.itemsPerRender * 400)
        }
    }

    func testAnEmptyListIsOnePage() {
        XCTAssertEqual(pages(of: JSONItemPages(keys: []) { _ in [] }), [.last(Array(#"{"items":[]}"#.utf8))])
    }

    func testItemsGoneByTheirPageAreLeftOut() {
        let keys = (0..<100).map { "item-\($0)" }
        let gone: Set<String> = ["item-0", "item-7", "item-8", "item-99"]
        let paged = pages(of: JSONItemPages(keys: keys) { slice in slice.filter { !gone.contains($0) }.map(Self.item) })
        let kept = keys.filter { !gone.contains($0) }
        XCTAssertEqual(joined(paged), JSONValue.object(["items": .array(kept.map(Self.item))]).serialized())
    }
}
