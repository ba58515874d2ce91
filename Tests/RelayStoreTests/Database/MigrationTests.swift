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
        XCTAssertEqual(try database.migrate(StoreSchema.migrations), 7)
        XCTAssertEqual(try database.userVersion(), 7)
        XCTAssertEqual(try tables(database), ["documents", "log_blocks", "meta", "sqlite_sequence"])
    }

    func testMigratingAgainIsANoOpThatKeepsData() throws {
        let path = directory.file("a.db")
        do {
            let database = try Database(path: path)
            try database.migrate(StoreSchema.migrations)
            try database.execute("INSERT INTO meta VALUES ('k', x'01')")
        }
        let database = try Database(path: path)
        XCTAssertEqual(try database.migrate(StoreSchema.migrations), 7)
        let count = try database.withStatement("SELECT count(*) FROM meta WHERE key = 'k'") {
            statement throws(StoreError) in
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
        let version = StoreSchema.latestVersion + 1
        let next = StoreSchema.migrations + [Migration(version: version, sql: "ALTER TABLE meta ADD COLUMN note TEXT")]
        let database = try Database(path: path)
        XCTAssertEqual(try database.migrate(next), version)
        XCTAssertEqual(try database.userVersion(), version)
        let note = try database.withStatement("SELECT key, note FROM meta") { statement throws(StoreError) in
            try statement.step() ? [statement.text(0), statement.text(1)] : []
        }
        XCTAssertEqual(note, ["k", nil])
    }

    func testFailedStepLeavesTheFileUntouched() throws {
        let database = try Database(path: directory.file("a.db"))
        let broken =
            StoreSchema.migrations + [
                Migration(version: StoreSchema.latestVersion + 1, sql: "CREATE TABLE x (a); CREATE TABLE x (a)")
            ]
        XCTAssertThrowsError(try database.migrate(broken))
        XCTAssertEqual(try database.userVersion(), 0)
        XCTAssertEqual(try tables(database), [])
    }

    func testTheWriterSaysWhichMigrationItApplied() throws {
        let path = directory.file("a.db")
        do {
            let database = try Database(path: path)
            try database.migrate(Array(StoreSchema.migrations.prefix(5)))
        }
        do {
            let store = try Store(path: path)
            defer { store.close() }
            let migration = try XCTUnwrap(store.writer.migration)
            XCTAssertEqual(migration.from, 5)
            XCTAssertEqual(migration.to, StoreSchema.latestVersion)
            XCTAssertGreaterThanOrEqual(migration.seconds, 0)
        }
        let reopened = try Store(path: path)
        defer { reopened.close() }
        XCTAssertNil(reopened.writer.migration)
        let fresh = try Store(path: directory.file("b.db"))
        defer { fresh.close() }
        XCTAssertEqual(fresh.writer.migration?.from, 0)
    }

    func testNewerFileAndBadNumberingAreRefused() throws {
        let database = try Database(path: directory.file("a.db"))
        try database.execute("PRAGMA user_version = 8")
        XCTAssertThrowsError(try database.migrate(StoreSchema.migrations)) { error in
            XCTAssertTrue((error as? StoreError)?.message.contains("schema version 8") ?? false)
        }
        XCTAssertThrowsError(try database.migrate([Migration(version: 2, sql: "SELECT 1")])) { error in
            XCTAssertTrue((error as? StoreError)?.message.contains("expected 1") ?? false)
        }
    }

    func testVersion2KeepsThePushLogAndItsNumbering() throws {
        let path = directory.file("a.db")
        do {
            let database = try Database(path: path)
            try database.migrate(Array(StoreSchema.migrations.prefix(1)))
            for apnsId in ["p1", "p2", "p3"] {
                try database.execute(
                    "INSERT INTO pushes (apns_id, unique_id, token, bundle_id, received_at, record) "
                        + "VALUES ('\(apnsId)', 'u-\(apnsId)', 'tok1', 'app.one', 1000, x'7b7d')")
            }
            // AUTOINCREMENT remembers 3 even though the newest row is gone.
            try database.execute("DELETE FROM pushes WHERE apns_id = 'p3'")
        }
        let database = try Database(path: path)
        XCTAssertEqual(try database.migrate(StoreSchema.migrations), 7)
        let writer = StoreWriter(database: database)
        try writer.submitAndWait(StoreBatch([.appendPush(Sample.push("p4"))]))
        writer.close()

        let store = try Store(path: path)
        defer { store.close() }
        let pushes = try store.reader.pushes(limit: 10)
        XCTAssertEqual(pushes.map(\.id), [4, 2, 1])
        XCTAssertEqual(pushes.map(\.push.apnsId), ["p4", "p2", "p1"])
        XCTAssertEqual(try store.reader.pushes(filter: PushFilter(uniqueId: "u-p2"), limit: 10).map(\.id), [2])
    }

    func testVersion4KeepsDocumentsAndLetsTheLogCarryNewerOnes() throws {
        let path = directory.file("a.db")
        do {
            let database = try Database(path: path)
            try database.migrate(Array(StoreSchema.migrations.prefix(3)))
            // A schema-3 file: one document in its row, one kept as a reference into its event.
            try database.execute(
                """
                INSERT INTO events (seq, type, at, device_id, bundle_id, activity_id, data)
                    VALUES (7, 'activity.updated', 1000, 'd1', 'app.one', 'a2', CAST('{"activity":{"id":"a2"}}' AS BLOB));
                INSERT INTO documents (kind, id, device_id, bundle_id, state, body)
                    VALUES ('activity', 'a1', 'd1', 'app.one', 'active', CAST('{"id":"a1"}' AS BLOB));
                INSERT INTO documents (kind, id, device_id, bundle_id, state, body, event_seq, body_offset, body_length)
                    VALUES ('activity', 'a2', 'd1', 'app.one', 'active', x'', 7, 12, 11);
                """)
        }
        let store = try Store(path: path)
        defer { store.close() }
        XCTAssertEqual(try store.reader.meta(StoreSchema.documentsThroughKey), Sample.bytes("7"))
        XCTAssertEqual(
            try store.reader.documents(kind: "activity").map(\.body),
            [Sample.bytes(#"{"id":"a1"}"#), Sample.bytes(#"{"id":"a2"}"#)])
        // A newer version carried by an event after the migration wins over the old row.
        let body = Sample.bytes(#"{"id":"a1","v":2}"#)
        try store.writer.submitAndWait(Sample.activityUpdate(8, "a1", body: body, state: "ended", at: 1_001))
        let a1 = try XCTUnwrap(try store.reader.document(kind: "activity", id: "a1"))
        XCTAssertEqual(a1.body, body)
        XCTAssertEqual(a1.state, "ended")
        XCTAssertEqual(try store.reader.document(kind: "activity", id: "a2")?.body, Sample.bytes(#"{"id":"a2"}"#))
    }
}
