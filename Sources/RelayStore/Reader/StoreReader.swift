import Foundation

/// Reads the store on a connection of its own, beside the writer (WAL lets readers run while the
/// writer commits). Every read sees only committed data.
///
/// Reads are serialized by a lock; open several readers for parallel reads.
public final class StoreReader: @unchecked Sendable {  // the connection is guarded by `lock`
    /// The most rows one read returns, whatever limit is asked for.
    package static let maxLimit = 10_000

    private let lock = NSLock()
    private let database: Database

    /// Reads through `database`, which must already hold the relay's schema.
    package init(database: Database) {
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
    package func close() {
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
    package func documents(kind: String, deviceId: String? = nil, bundleId: String? = nil) throws(StoreError)
        -> [StoredDocument]
    {
        try currentDocuments(kind: kind, id: nil).filter { document in
            (deviceId == nil || document.deviceId == deviceId) && (bundleId == nil || document.bundleId == bundleId)
        }
    }

    /// The document `kind`/`id`, or nil when there is none.
    package func document(kind: String, id: String) throws(StoreError) -> StoredDocument? {
        try currentDocuments(kind: kind, id: id).first
    }

    /// The documents of `kind` (only `id`, if given) as they stand: each row, or the latest
    /// version an event after the flush mark carries, whichever is newer (see `StoreSchema`).
    /// Read in one transaction, so rows and log are of the same commit.
    private func currentDocuments(kind: String, id: String?) throws(StoreError) -> [StoredDocument] {
        let idFilter = id == nil ? "" : " AND id = ?2"
        let rowsSQL = """
            SELECT kind, id, device_id, bundle_id, state, body, event_seq, body_offset, body_length, as_of
            FROM documents WHERE kind = ?1\(idFilter) ORDER BY id
            """
        return try read { database throws(StoreError) in
            try database.transaction(.deferred) { () throws(StoreError) -> [StoredDocument] in
                var documents: [StoredDocument] = []
                var asOf: [Int64?] = []
                var position: [String: Int] = [:]
                // Bodies kept as references into events, read block by block once all rows are in.
                var referring: [Int] = []
                var requests: [EventSliceRequest] = []
                try database.withStatement(rowsSQL) { row throws(StoreError) in
                    try row.bind(kind, at: 1)
                    if let id { try row.bind(id, at: 2) }
                    while try row.step() {
                        position[row.text(1) ?? ""] = documents.count
                        if !row.isNull(6) {
                            referring.append(documents.count)
                            requests.append(
                                EventSliceRequest(
                                    seq: row.int64(6), offset: Int(row.int64(7)), length: Int(row.int64(8))))
                        }
                        documents.append(
                            StoredDocument(
                                kind: row.text(0) ?? "", id: row.text(1) ?? "", deviceId: row.text(2),
                                bundleId: row.text(3), state: row.text(4), body: row.blob(5) ?? []))
                        asOf.append(row.isNull(9) ? nil : row.int64(9))
                    }
                }
                for (index, body) in zip(referring, try database.eventSlices(requests)) {
                    documents[index].body = body
                }
                var added = false
                let through = try database.metaInteger(StoreSchema.documentsThroughKey) ?? Int64.min
                // The latest carrying event of each document, with its block; bodies cut out after.
                var carried: [String: (event: LogBlock.Event, block: LogBlock.Contents)] = [:]
                try database.forEachLogBlock(withEventsAfter: through) { contents throws(StoreError) in
                    for event in contents.events where event.seq > through {
                        guard let note = event.carried, note.kind == kind, id == nil || note.id == id else { continue }
                        carried[note.id] = (event, contents)
                    }
                    return true
                }
                for (event, block) in carried.values {
                    guard let note = event.carried else { continue }
                    if let index = position[note.id], let rowAsOf = asOf[index], rowAsOf >= event.seq { continue }
                    let document = StoredDocument(
                        kind: kind, id: note.id, deviceId: event.deviceId, bundleId: event.bundleId, state: note.state,
                        body: try block.slice(seq: event.seq, offset: note.offset, length: note.length))
                    if let index = position[note.id] {
                        documents[index] = document
                    } else {
                        documents.append(document)
                        added = true
                    }
                }
                if added { documents.sort { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) } }
                return documents
            }
        }
    }

    // MARK: - Meta

    /// The value stored under `key`, or nil.
    package func meta(_ key: String) throws(StoreError) -> [UInt8]? {
        try read { database throws(StoreError) in
            try database.withStatement("SELECT value FROM meta WHERE key = ?1") { statement throws(StoreError) in
                try statement.bind(key, at: 1)
                return try statement.step() ? statement.blob(0) ?? [] : nil
            }
        }
    }
}
