import Glibc
import RelayStore
import XCTest

final class DatabaseTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    private func pragma(_ database: Database, _ name: String) throws -> String? {
        try database.withStatement("PRAGMA \(name)") { statement throws(StoreError) in
            try statement.step() ? statement.text(0) : nil
        }
    }

    func testOpensInWALWithFullSyncAndForeignKeys() throws {
        let database = try Database(path: directory.file("a.db"))
        XCTAssertEqual(try pragma(database, "journal_mode"), "wal")
        XCTAssertEqual(try pragma(database, "synchronous"), "2")
        XCTAssertEqual(try pragma(database, "foreign_keys"), "1")
    }

    func testDatabaseAndItsWALFilesAreOwnerOnly() throws {
        let path = directory.file("a.db")
        let database = try Database(path: path)
        try database.execute("CREATE TABLE t (x)")
        try database.execute("INSERT INTO t VALUES (1)")
        for file in [path, path + "-wal", path + "-shm"] {
            var info = stat()
            XCTAssertEqual(stat(file, &info), 0, file)
            XCTAssertEqual(info.st_mode & 0o777, 0o600, file)
        }
        // A file another tool made world-readable is tightened when the relay opens it.
        let loose = directory.file("loose.db")
        close(open(loose, O_RDWR | O_CREAT, 0o644))
        chmod(loose, 0o644)
        _ = try Database(path: loose)
        var info = stat()
        XCTAssertEqual(stat(loose, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
    }

    func testNewFileGets8KiBPagesAndAnOlderFileKeepsItsOwn() throws {
        let fresh = try Database(path: directory.file("a.db"))
        try fresh.migrate(StoreSchema.migrations)
        XCTAssertEqual(try pragma(fresh, "page_size"), "8192")
        XCTAssertEqual(try pragma(fresh, "wal_autocheckpoint"), "4096")
        XCTAssertEqual(try pragma(fresh, "secure_delete"), "2")
        // A file made with 4 KiB pages (as before 8 KiB became the default) stays as it is.
        let path = directory.file("old.db")
        do {
            let old = try Database(path: path)
            try old.execute("CREATE TABLE t (a); INSERT INTO t VALUES (1)")
            // Only a rollback-journal file can change its page size, with VACUUM.
            try old.execute("PRAGMA journal_mode = DELETE; PRAGMA page_size = 4096; VACUUM; PRAGMA journal_mode = WAL")
            XCTAssertEqual(try pragma(old, "page_size"), "4096")
        }
        let reopened = try Database(path: path)
        XCTAssertEqual(try pragma(reopened, "page_size"), "4096")
        XCTAssertEqual(try pragma(reopened, "wal_autocheckpoint"), "8192")
        XCTAssertEqual(
            try reopened.withStatement("SELECT a FROM t") { statement throws(StoreError) in
                try statement.step() ? statement.int64(0) : 0
            }, 1)
    }

    func testNormalSynchronousIsConfigurable() throws {
        let database = try Database(path: directory.file("a.db"), options: DatabaseOptions(synchronous: .normal))
        XCTAssertEqual(try pragma(database, "synchronous"), "1")
    }

    func testReaderOptionsRefuseWritesAndMissingFiles() throws {
        XCTAssertThrowsError(try Database(path: directory.file("missing.db"), options: .reader))
        let writer = try Database(path: directory.file("a.db"))
        try writer.execute("CREATE TABLE t (x)")
        let reader = try Database(path: directory.file("a.db"), options: .reader)
        XCTAssertThrowsError(try reader.execute("INSERT INTO t VALUES (1)"))
    }

    func testValuesRoundTripWithNullsAndEmptiesKeptApart() throws {
        let database = try Database(path: directory.file("a.db"))
        try database.execute("CREATE TABLE t (i INTEGER, d REAL, s TEXT, b BLOB)")
        let rows: [(Int64?, Double, String?, [UInt8]?)] = [
            (Int64.min, -0.5, "", []),
            (Int64.max, 1e300, "héllo \u{1F600}\0tail", [0, 255, 0]),
            (nil, 0, nil, nil),
        ]
        for row in rows {
            try database.withStatement("INSERT INTO t VALUES (?1, ?2, ?3, ?4)") { statement throws(StoreError) in
                try statement.bind(row.0, at: 1)
                try statement.bind(row.1, at: 2)
                try statement.bind(row.2, at: 3)
                try statement.bind(row.3, at: 4)
                try statement.run()
            }
        }
        let read = try database.withStatement("SELECT i, d, s, b FROM t ORDER BY rowid") {
            statement throws(StoreError) in
            var out: [(Int64?, Double, String?, [UInt8]?)] = []
            while try statement.step() {
                out.append(
                    (
                        statement.isNull(0) ? nil : statement.int64(0), statement.double(1), statement.text(2),
                        statement.blob(3)
                    ))
            }
            return out
        }
        XCTAssertEqual(read.count, rows.count)
        for (got, want) in zip(read, rows) {
            XCTAssertEqual(got.0, want.0)
            XCTAssertEqual(got.1, want.1)
            XCTAssertEqual(got.2, want.2)
            XCTAssertEqual(got.3, want.3)
        }
    }

    func testErrorsCarrySQLiteCodeAndMessage() throws {
        let database = try Database(path: directory.file("a.db"))
        try database.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)")
        try database.execute("INSERT INTO t VALUES (1)")
        XCTAssertThrowsError(try database.execute("INSERT INTO t VALUES (1)")) { error in
            let failure = error as? StoreError
            XCTAssertEqual(failure?.code, 19)  // SQLITE_CONSTRAINT
            XCTAssertTrue(failure?.message.contains("UNIQUE") ?? false, "\(String(describing: failure))")
        }
        XCTAssertThrowsError(try database.withStatement("SELEC nonsense") { _ throws(StoreError) in }) { error in
            XCTAssertEqual((error as? StoreError)?.operation, "prepare")
            XCTAssertEqual((error as? StoreError)?.code, 1)  // SQLITE_ERROR
        }
    }

    func testTransactionCommitsOrRollsBack() throws {
        let database = try Database(path: directory.file("a.db"))
        try database.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)")
        try database.transaction { () throws(StoreError) in try database.execute("INSERT INTO t VALUES (1)") }
        XCTAssertThrowsError(
            try database.transaction { () throws(StoreError) in
                try database.execute("INSERT INTO t VALUES (2)")
                try database.execute("INSERT INTO t VALUES (1)")
            })
        XCTAssertTrue(database.isAutocommit)
        let count = try database.withStatement("SELECT count(*) FROM t") { statement throws(StoreError) in
            try statement.step() ? statement.int64(0) : -1
        }
        XCTAssertEqual(count, 1)
    }

    func testSavepointUndoesOnlyItsOwnWrites() throws {
        let database = try Database(path: directory.file("a.db"))
        try database.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)")
        try database.transaction { () throws(StoreError) in
            try database.execute("INSERT INTO t VALUES (1)")
            XCTAssertThrowsError(
                try database.savepoint("s") { () throws(StoreError) in
                    try database.execute("INSERT INTO t VALUES (2)")
                    try database.execute("INSERT INTO t VALUES (1)")
                })
            try database.execute("INSERT INTO t VALUES (3)")
        }
        let values = try database.withStatement("SELECT x FROM t ORDER BY x") { statement throws(StoreError) in
            var out: [Int64] = []
            while try statement.step() { out.append(statement.int64(0)) }
            return out
        }
        XCTAssertEqual(values, [1, 3])
    }

    func testNestedUseOfOneStatementDoesNotShareIt() throws {
        let database = try Database(path: directory.file("a.db"))
        try database.execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2)")
        let sql = "SELECT x FROM t ORDER BY x"
        let pairs = try database.withStatement(sql) { outer throws(StoreError) in
            var pairs: [(Int64, Int64)] = []
            while try outer.step() {
                let first = try database.withStatement(sql) { inner throws(StoreError) in
                    try inner.step() ? inner.int64(0) : -1
                }
                pairs.append((outer.int64(0), first))
            }
            return pairs
        }
        XCTAssertEqual(pairs.map(\.0), [1, 2])
        XCTAssertEqual(pairs.map(\.1), [1, 1])
    }

    func testClosedDatabaseFailsCleanly() throws {
        let database = try Database(path: directory.file("a.db"))
        database.close()
        database.close()
        XCTAssertFalse(database.isOpen)
        XCTAssertThrowsError(try database.execute("SELECT 1")) { error in
            XCTAssertEqual((error as? StoreError)?.message, "database is closed")
        }
    }
}
