import Foundation

/// Reads the store on a connection of its own, beside the writer (WAL lets readers run while the
/// writer commits). Every read sees only committed data.
///
/// Reads are serialized by a lock; open several readers for parallel reads.
public final class StoreReader: @unchecked Sendable {  // the connection is guarded by `lock`
    /// The most rows one read returns, whatever limit is asked for.
    public static let maxLimit = 10_000

    private let lock = NSLock()
    private let database: Database

    /// Reads through `database`, which must already hold the relay's schema.
    public init(database: Database) {
        self.database = database
    }

    /// Opens a read-only connection to the store at `path` (created and migrated by the writer).
    public convenience init(path: String) throws(StoreError) {
        let database = try Database(path: path, options: .reader)
        let version = try database.userVersion()
        guard version == StoreSchema.latestVersion else {
            throw .store("open reader", "\(path) has schema version \(version), expected \(StoreSchema.latestVersion)")
        }
        self.init(database: database)
    }

    /// Closes the connection; later reads fail.
    public func close() {
        lock.lock()
        defer { lock.unlock() }
        database.close()
    }

    /// Runs `body` on the connection under the lock.
    func read<T>(_ body: (Database) throws(StoreError) -> T) throws(StoreError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(database)
    }

    /// Clamps a caller's limit to `0...maxLimit`.
    static func clamp(_ limit: Int) -> Int64 { Int64(min(max(limit, 0), maxLimit)) }

    // MARK: - Documents

    /// Every document of `kind`, ordered by id; optionally only those of one device or app.
    public func documents(kind: String, deviceId: String? = nil, bundleId: String? = nil) throws(StoreError)
        -> [StoredDocument]
    {
        var sql = "SELECT \(Self.documentColumns) FROM documents WHERE kind = ?1"
        if deviceId != nil { sql += " AND device_id = ?2" }
        if bundleId != nil { sql += " AND bundle_id = ?3" }
        sql += " ORDER BY id"
        return try read { database throws(StoreError) in
            try database.withStatement(sql) { statement throws(StoreError) in
                try statement.bind(kind, at: 1)
                if let deviceId { try statement.bind(deviceId, at: 2) }
                if let bundleId { try statement.bind(bundleId, at: 3) }
                var documents: [StoredDocument] = []
                while try statement.step() { documents.append(Self.document(statement)) }
                return documents
            }
        }
    }

    /// The document `kind`/`id`, or nil when there is none.
    public func document(kind: String, id: String) throws(StoreError) -> StoredDocument? {
        let sql = "SELECT \(Self.documentColumns) FROM documents WHERE kind = ?1 AND id = ?2"
        return try read { database throws(StoreError) in
            try database.withStatement(sql) { statement throws(StoreError) in
                try statement.bind(kind, at: 1)
                try statement.bind(id, at: 2)
                return try statement.step() ? Self.document(statement) : nil
            }
        }
    }

    /// A document's columns, its body cut out of its event when it is kept as a reference (`EmbeddedRecord`).
    private static let documentColumns = """
        kind, id, device_id, bundle_id, state, CASE WHEN event_seq IS NULL THEN body ELSE
            (SELECT substr(data, documents.body_offset + 1, documents.body_length) FROM events
            WHERE seq = documents.event_seq) END
        """

    private static func document(_ row: Statement) -> StoredDocument {
        StoredDocument(
            kind: row.text(0) ?? "", id: row.text(1) ?? "", deviceId: row.text(2), bundleId: row.text(3),
            state: row.text(4), body: row.blob(5) ?? [])
    }

    // MARK: - Meta

    /// The value stored under `key`, or nil.
    public func meta(_ key: String) throws(StoreError) -> [UInt8]? {
        try read { database throws(StoreError) in
            try database.withStatement("SELECT value FROM meta WHERE key = ?1") { statement throws(StoreError) in
                try statement.bind(key, at: 1)
                return try statement.step() ? statement.blob(0) ?? [] : nil
            }
        }
    }
}
