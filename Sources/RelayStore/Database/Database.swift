import CSQLite
import Glibc

/// One SQLite connection: WAL journal, chosen `synchronous` level, busy timeout, foreign keys,
/// and a cache of prepared statements.
///
/// A connection is used by one thread at a time (it is opened with `SQLITE_OPEN_NOMUTEX`); the
/// owner hands it over (to a writer thread, or behind a reader's lock) but never shares it.
/// Every failure is a `StoreError` carrying SQLite's result code and message.
package final class Database: @unchecked Sendable {  // one thread at a time, by contract
    /// The file this connection opened.
    package let path: String
    /// The options it was opened with.
    package let options: DatabaseOptions
    private(set) var handle: OpaquePointer?
    private var cache: [String: Statement] = [:]
    /// Where the WAL hook leaves the log's length, once `countWALFrames()` installed it.
    private var walCounter: WALFrameCounter?

    /// SQLite's process-wide settings, applied once before the first connection opens: memory
    /// statistics off (each allocation took a global mutex to count itself; nothing reads them).
    private static let configured: Void = {
        _ = relay_sqlite3_config_memstatus_off()
    }()

    /// Opens (and by default creates) the database at `path` and applies `options`.
    package init(path: String, options: DatabaseOptions = DatabaseOptions()) throws(StoreError) {
        Self.configured
        self.path = path
        self.options = options
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        if options.create && !options.readOnly { flags |= SQLITE_OPEN_CREATE }
        if !options.readOnly { Self.restrictToOwner(path, create: options.create) }
        var connection: OpaquePointer?
        let rc = sqlite3_open_v2(path, &connection, flags, nil)
        guard rc == SQLITE_OK, let connection else {
            let failure = StoreError(sqlite: rc, connection: connection, operation: "open", sql: nil)
            sqlite3_close_v2(connection)
            throw StoreError(operation: "open", code: failure.code, message: "\(path): \(failure.message)")
        }
        handle = connection
        do {
            try configure()
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Makes the database file owner-only (0600) before SQLite opens it: creates it so when it is
    /// missing (and `create` allows), and tightens an existing file and its `-wal` and `-shm`.
    /// SQLite gives the `-wal` and `-shm` files it creates the main file's mode, so they follow.
    /// Rows hold device tokens and push payloads. In-memory and URI paths are left to SQLite.
    private static func restrictToOwner(_ path: String, create: Bool) {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else { return }
        if create {
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            if fd >= 0 { Glibc.close(fd) }
        }
        for file in [path, path + "-wal", path + "-shm"] { _ = chmod(file, 0o600) }
    }

    private func configure() throws(StoreError) {
        guard let handle else { throw Self.closedError("configure") }
        let rc = sqlite3_busy_timeout(handle, options.busyTimeoutMilliseconds)
        guard rc == SQLITE_OK else { throw StoreError(sqlite: rc, connection: handle, operation: "busy_timeout") }
        // Every connection reads the event log's data, which the writer may have packed.
        let registered = EventPacking.register(on: handle)
        guard registered == SQLITE_OK else {
            throw StoreError(sqlite: registered, connection: handle, operation: "register relay_data")
        }
        if options.readOnly {
            // A reader must not change the journal mode; it relies on the writer having set WAL.
            try execute("PRAGMA query_only = ON")
        } else {
            // A new file gets 8 KiB pages (the page size is fixed once the file has its first
            // page, so an existing file keeps its own): an event row of about a kilobyte left a
            // quarter of a 4 KiB page empty, and every page in the WAL is two write calls.
            try execute("PRAGMA page_size = 8192")
            let mode = try withStatement("PRAGMA journal_mode = WAL") { statement throws(StoreError) in
                try statement.step() ? statement.text(0) : nil
            }
            guard mode?.lowercased() == "wal" else {
                throw StoreError.store("open", "\(path): journal mode stayed \(mode ?? "unknown"), not wal")
            }
            try execute("PRAGMA synchronous = \(options.synchronous.rawValue)")
            // Checkpoint once the WAL holds about 32 MiB (SQLite's default is 1000 pages): a busy
            // relay appends many small rows.
            try execute("PRAGMA wal_autocheckpoint = \((32 << 20) / max(512, try pageSize()))")
            // Debian's SQLite is built with SECURE_DELETE, which zeroes every freed page and writes
            // it out: pruning the logs wrote as many pages again. FAST still zeroes deleted rows on
            // the pages a write touches anyway, but never writes a page only to clear it.
            try execute("PRAGMA secure_delete = FAST")
        }
        // Keep the working set in memory (64 MiB page cache, memory-mapped reads, temp tables in RAM),
        // so a commit writes pages instead of reading them back first.
        try execute("PRAGMA cache_size = -65536")
        try execute("PRAGMA temp_store = MEMORY")
        _ = try withStatement("PRAGMA mmap_size = 268435456") { statement throws(StoreError) in try statement.step() }
        try execute("PRAGMA foreign_keys = ON")
    }

    /// Closes the connection; later calls fail with a "closed" error. Safe to call twice.
    package func close() {
        cache.removeAll()
        if let handle, walCounter != nil { sqlite3_wal_hook(handle, nil, nil) }
        walCounter = nil
        // close_v2 defers the close until the last outstanding statement is finalized.
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// True until `close()`.
    package var isOpen: Bool { handle != nil }

    // MARK: - Running SQL

    /// Runs one or more `;`-separated statements that return no rows of interest (DDL, PRAGMA).
    package func execute(_ sql: String) throws(StoreError) {
        guard let handle else { throw Self.closedError("execute") }
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        guard rc == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_free(message)
            throw StoreError(operation: "execute", code: rc & 0xFF, message: "\(text) [\(sql.prefix(200))]")
        }
    }

    /// Runs `body` with the cached prepared statement for `sql`, then resets it (so no read
    /// transaction stays open) and clears its bindings. A statement already in use by an outer
    /// call is prepared afresh rather than shared.
    package func withStatement<T>(
        _ sql: String, _ body: (Statement) throws(StoreError) -> T
    ) throws(StoreError) -> T {
        let statement: Statement
        if let cached = cache[sql], !cached.inUse {
            statement = cached
        } else {
            statement = try prepare(sql)
            if cache[sql] == nil {
                if cache.count >= options.statementCacheCapacity { cache = cache.filter { $0.value.inUse } }
                cache[sql] = statement
            }
        }
        statement.inUse = true
        defer {
            statement.reset()
            statement.inUse = false
        }
        return try body(statement)
    }

    /// A new prepared statement for `sql`, not cached: for an owner that keeps its own statements.
    func prepare(_ sql: String) throws(StoreError) -> Statement {
        guard let handle else { throw Self.closedError("prepare") }
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw StoreError(sqlite: rc, connection: handle, operation: "prepare", sql: sql)
        }
        return Statement(handle: statement, sql: sql, connection: handle)
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE on this connection.
    package var changes: Int {
        guard let handle else { return 0 }
        return Int(sqlite3_changes64(handle))
    }

    /// The rowid of the last successful INSERT on this connection.
    package var lastInsertRowID: Int64 {
        guard let handle else { return 0 }
        return sqlite3_last_insert_rowid(handle)
    }

    /// True when no transaction is open (SQLite's autocommit mode). SQLite rolls a transaction
    /// back on its own after some errors (disk full, I/O); this is how a caller notices.
    package var isAutocommit: Bool {
        guard let handle else { return true }
        return sqlite3_get_autocommit(handle) != 0
    }

    /// The WAL's length in frames (pages) after this connection's last commit; nil until
    /// `countWALFrames()`.
    package var walFrames: Int? { walCounter?.frames }

    /// Replaces SQLite's automatic checkpoints on this connection (which run inside the COMMIT
    /// that crosses `wal_autocheckpoint`) with a count of the log's frames after each commit, read
    /// through `walFrames`: the owner checkpoints when and where it chooses.
    package func countWALFrames() {
        guard let handle, walCounter == nil else { return }
        let counter = WALFrameCounter()
        walCounter = counter
        // Setting a WAL hook replaces the one `wal_autocheckpoint` installs. The counter lives as
        // long as the hook: `close()` removes the hook before it lets the counter go.
        sqlite3_wal_hook(
            handle,
            { context, _, _, frames in
                if let context {
                    Unmanaged<WALFrameCounter>.fromOpaque(context).takeUnretainedValue().frames = Int(frames)
                }
                return SQLITE_OK
            },
            Unmanaged.passUnretained(counter).toOpaque())
    }

    static func closedError(_ operation: String) -> StoreError {
        StoreError(operation: operation, code: SQLITE_MISUSE, message: "database is closed")
    }
}

/// The WAL's length after the last commit, as SQLite's WAL hook reports it.
private final class WALFrameCounter {
    var frames = 0
}
