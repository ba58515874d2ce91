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
        try currentDocuments(kind: kind, id: nil).filter { document in
            (deviceId == nil || document.deviceId == deviceId) && (bundleId == nil || document.bundleId == bundleId)
        }
    }

    /// The document `kind`/`id`, or nil when there is none.
    public func document(kind: String, id: String) throws(StoreError) -> StoredDocument? {
        try currentDocuments(kind: kind, id: id).first
    }

    /// The documents of `kind` (only `id`, if given) as they stand: each row, or the latest
    /// version an event after the flush mark carries, whichever is newer (see `StoreSchema`).
    /// Read in one transaction, so rows and log are of the same commit.
    private func currentDocuments(kind: String, id: String?) throws(StoreError) -> [StoredDocument] {
        let idFilter = id == nil ? "" : " AND id = ?2"
        let rowsSQL = "SELECT \(Self.documentColumns), as_of FROM documents WHERE kind = ?1\(idFilter) ORDER BY id"
        let carriedSQL = """
            SELECT doc_kind, doc_id, device_id, bundle_id, doc_state, relay_data(data, doc_offset, doc_length), seq
            FROM (
                SELECT doc_kind, doc_id, device_id, bundle_id, doc_state, data, doc_offset, doc_length, max(seq) AS seq
                FROM events
                WHERE seq > coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?3), -9223372036854775808)
                    AND doc_kind = ?1\(id == nil ? "" : " AND doc_id = ?2")
                GROUP BY doc_id)
            """
        return try read { database throws(StoreError) in
            try database.transaction(.deferred) { () throws(StoreError) -> [StoredDocument] in
                var documents: [StoredDocument] = []
                var asOf: [Int64?] = []
                var position: [String: Int] = [:]
                try database.withStatement(rowsSQL) { statement throws(StoreError) in
                    try statement.bind(kind, at: 1)
                    if let id { try statement.bind(id, at: 2) }
                    while try statement.step() {
                        position[statement.text(1) ?? ""] = documents.count
                        documents.append(Self.document(statement))
                        asOf.append(statement.isNull(6) ? nil : statement.int64(6))
                    }
                }
                var added = false
                try database.withStatement(carriedSQL) { statement throws(StoreError) in
                    try statement.bind(kind, at: 1)
                    if let id { try statement.bind(id, at: 2) }
                    try statement.bind(StoreSchema.documentsThroughKey, at: 3)
                    while try statement.step() {
                        let seq = statement.int64(6)
                        let carried = Self.document(statement)
                        if let index = position[carried.id] {
                            if let rowAsOf = asOf[index], rowAsOf >= seq { continue }
                            documents[index] = carried
                        } else {
                            documents.append(carried)
                            added = true
                        }
                    }
                }
                if added { documents.sort { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) } }
                return documents
            }
        }
    }

    /// A document's columns, its body cut out of its event when it is kept as a reference (`EmbeddedRecord`).
    private static let documentColumns = """
        kind, id, device_id, bundle_id, state, CASE WHEN event_seq IS NULL THEN body ELSE
            (SELECT relay_data(data, documents.body_offset, documents.body_length) FROM events
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
