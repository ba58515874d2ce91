import RelayStore
import XCTest

final class MigrationTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    private func tables(_ database: Database) throws -> [String] {
        try database.withStatement("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
            statement throws(StoreError) in
            var names: [String] = []
            while try statement.step() { names.append(statement.text(0) ?? "") }
            return names
        }
    }

    func testFreshFileGetsTheWholeSchema() throws {
        let database = try Database(path: directory.file("a.db"))
        XCTAssertEqual(try database.userVersion(), 0)
        XCTAssertEqual(try database.migrate(StoreSchema.migrations), 1)
        XCTAssertEqual(try database.userVersion(), 1)
        XCTAssertEqual(try tables(database), ["documents", "events", "meta", "pushes", "sqlite_sequence"])
    }

    func testMigratingAgainIsANoOpThatKeepsData() throws {
        let path = directory.file("a.db")
        do {
            let database = try Database(path: path)
            try database.migrate(StoreSchema.migrations)
            try database.execute("INSERT INTO meta VALUES ('k', x'01')")
        }
        let database = try Database(path: path)
        XCTAssertEqual(try database.migrate(StoreSchema.migrations), 1)
        let count = try database.withStatement("SELECT count(*) FROM meta") { statement throws(StoreError) in
            try statement.step() ? statement.int64(0) : -1
        }
        XCTAssertEqual(count, 1)
    }

    func testExistingFileIsBroughtForwardStepByStep() throws {
        let path = directory.file("a.db")
        do {
            let database = try Database(path: path)
            try database.migrate(StoreSchema.migrations)
            try database.execute("INSERT INTO meta VALUES ('k', x'01')")
        }
        let next = StoreSchema.migrations + [Migration(version: 2, sql: "ALTER TABLE meta ADD COLUMN note TEXT")]
        let database = try Database(path: path)
        XCTAssertEqual(try database.migrate(next), 2)
        XCTAssertEqual(try database.userVersion(), 2)
        let note = try database.withStatement("SELECT key, note FROM meta") { statement throws(StoreError) in
            try statement.step() ? [statement.text(0), statement.text(1)] : []
        }
        XCTAssertEqual(note, ["k", nil])
    }

    func testFailedStepLeavesTheFileUntouched() throws {
        let database = try Database(path: directory.file("a.db"))
        let broken = StoreSchema.migrations + [Migration(version: 2, sql: "CREATE TABLE x (a); CREATE TABLE x (a)")]
        XCTAssertThrowsError(try database.migrate(broken))
        XCTAssertEqual(try database.userVersion(), 0)
        XCTAssertEqual(try tables(database), [])
    }

    func testNewerFileAndBadNumberingAreRefused() throws {
        let database = try Database(path: directory.file("a.db"))
        try database.execute("PRAGMA user_version = 7")
        XCTAssertThrowsError(try database.migrate(StoreSchema.migrations)) { error in
            XCTAssertTrue((error as? StoreError)?.message.contains("schema version 7") ?? false)
        }
        XCTAssertThrowsError(try database.migrate([Migration(version: 2, sql: "SELECT 1")])) { error in
            XCTAssertTrue((error as? StoreError)?.message.contains("expected 1") ?? false)
        }
    }
}
