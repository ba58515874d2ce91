import XCTest

@testable import RelayStore

/// Text bound through a `TextScratch` reads back exactly as bound, whether it fit in the scratch
/// (bound without SQLite copying it) or not (bound as usual).
final class TextScratchTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    func testTextBoundFromTheScratchReadsBackWhetherItFitOrNot() throws {
        let database = try Database(path: directory.file("a.db"))
        try database.execute("CREATE TABLE t (a TEXT, b TEXT, c TEXT, d TEXT)")
        let scratch = TextScratch(capacity: 16)
        let rows: [[String?]] = [
            ["", "héllo", nil, "short"],
            ["0123456789", "abcdef", "this one does not fit", "x"],
            ["a-string-longer-than-sixteen-bytes", "\u{1F600}", "é", nil],
        ]
        let insert = try database.prepare("INSERT INTO t VALUES (?1, ?2, ?3, ?4)")
        for row in rows {
            scratch.clear()
            for (offset, value) in row.enumerated() {
                try insert.bind(value, at: Int32(offset + 1), copiedInto: scratch)
            }
            try insert.run()
            insert.reset()
        }
        let read = try database.withStatement("SELECT a, b, c, d FROM t ORDER BY rowid") {
            statement throws(StoreError) -> [[String?]] in
            var out: [[String?]] = []
            while try statement.step() { out.append((0..<4).map { statement.isNull($0) ? nil : statement.text($0) }) }
            return out
        }
        XCTAssertEqual(read, rows)
    }

    func testCopiesStayPutUntilCleared() {
        let scratch = TextScratch(capacity: 8)
        let first = scratch.copy("abc")
        let second = scratch.copy("defg")
        XCTAssertNil(scratch.copy("hi"), "only one byte is left")
        XCTAssertEqual(first.map { Array($0) }, Array("abc".utf8))
        XCTAssertEqual(second.map { Array($0) }, Array("defg".utf8))
        scratch.clear()
        XCTAssertEqual(scratch.copy("12345678").map { Array($0) }, Array("12345678".utf8))
    }
}
