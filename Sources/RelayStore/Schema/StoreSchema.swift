/// The relay's tables, as a list of migrations.
///
/// - `documents`: every domain object (device, app, activity, alarm, channel, ...) as one JSON
///   document keyed by kind and id, with the columns the relay looks objects up by. Since
///   version 3 a document whose body an event of its batch carries verbatim (an activity's
///   `activity.updated`, say) keeps only where: `event_seq`, `body_offset`, `body_length`, with an
///   empty `body`, which leaves several documents to a page instead of about four.
/// - `events`: the durable event log behind the stream; `seq` is the caller's global sequence
///   number and only ever grows.
/// - `pushes`: the push log, newest first by `id`. Since version 2 the writer numbers entries
///   itself (see `lastPushIDKey`) instead of through AUTOINCREMENT, which rewrote
///   `sqlite_sequence` on every insert, and only broadcasts' `channel_id` is indexed (a partial
///   index: device pushes have none). An index on `token`, `apns_id` or `unique_id` took a
///   random page per push, written to the WAL at every commit and again at every checkpoint
///   (about a tenth of a push's cost each), for lookups that scan the bounded, retained log
///   newest first in about a millisecond and a half per 10,000 entries; `bundle_id` matches
///   most of the log, so a newest-first scan finds its entries at once. Since version 3 an
///   entry whose record is carried verbatim by an event (its `push.received`) keeps only where,
///   `event_seq`, `record_offset` and `record_length` (bytes), with an empty `record`; entries
///   from before, and those whose event was pruned first, keep the record itself (see
///   `EmbeddedRecord`).
/// - `meta`: small named values (clock state, keys, the next sequence number).
///
/// Since version 4 a document carried by an event of its batch is not written to `documents`
/// with every change: the event's row says which document it carries (`doc_kind`, `doc_id`,
/// `doc_state`, and where in its data: `doc_offset`, `doc_length`; the lookup columns are the
/// event's own `device_id` and `bundle_id`), and the writer brings `documents` up to date from
/// the log about once a second (see `BatchApplier`). `documentsThroughKey` names the last event
/// so applied; a document's current version is its row, or the latest event after that mark
/// that carries it, whichever is newer by `as_of` (the log position a row was written at).
/// `StoreReader` reads documents that way, so what it returns never lags the log.
///
/// Since version 5 the writer packs an event's `data` with LZ4 against a fixed dictionary when
/// that makes it smaller (`EventPacking`; meta `store.eventData` names the format). Rows from
/// before stay as they are and read the same; offsets into an event's data (documents, push
/// records) count in the unpacked data, which the SQL function `relay_data` gives. The version
/// keeps an older relay, which would read packed data as it is, from opening the file.
///
/// Since version 6 the event log and the push log are one table, `log_blocks`: a row per commit
/// that appends to either, holding that commit's events and push log entries in one blob
/// (`LogBlock`), with the range of event seqs and push log ids it holds, each indexed by its
/// end. What the rows of `events` and `pushes` held moves into blocks at the migration (records
/// kept as references into pruned-then events become their bytes), and those tables go.
/// Pruning moves a mark (`eventsFromKey`, `pushesFromKey`) past what it removes and deletes the
/// blocks with nothing visible left. A document row's `event_seq` and a carried document are
/// found by seq, in whichever block holds it.
///
/// Since version 7 a block's push log entries and its events are two columns, `pushes` before
/// `events` (a version 6 block had both in `data`), so that a search of the push log reads only
/// the entries: reading the events' data too made such a search ten times slower than with the
/// `pushes` table of version 5.
package enum StoreSchema {
    /// Every migration, oldest first. Append new steps; never edit a step that has shipped.
    package static let migrations: [Migration] = [
        Migration(
            version: 1,
            sql: """
                CREATE TABLE documents (
                    kind TEXT NOT NULL,
                    id TEXT NOT NULL,
                    device_id TEXT,
                    bundle_id TEXT,
                    state TEXT,
                    body BLOB NOT NULL,
                    PRIMARY KEY (kind, id)
                );
                CREATE INDEX documents_device ON documents (kind, device_id);
                CREATE INDEX documents_bundle ON documents (kind, bundle_id);

                CREATE TABLE events (
                    seq INTEGER PRIMARY KEY,
                    type TEXT NOT NULL,
                    at REAL NOT NULL,
                    device_id TEXT,
                    bundle_id TEXT,
                    activity_id TEXT,
                    alarm_id TEXT,
                    data BLOB NOT NULL
                );

                CREATE TABLE pushes (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    apns_id TEXT,
                    unique_id TEXT,
                    token TEXT,
                    channel_id TEXT,
                    bundle_id TEXT,
                    received_at REAL NOT NULL,
                    record BLOB NOT NULL
                );
                CREATE INDEX pushes_apns_id ON pushes (apns_id);
                CREATE INDEX pushes_unique_id ON pushes (unique_id);
                CREATE INDEX pushes_token ON pushes (token);
                CREATE INDEX pushes_channel ON pushes (channel_id);
                CREATE INDEX pushes_bundle ON pushes (bundle_id);

                CREATE TABLE meta (
                    key TEXT PRIMARY KEY,
                    value BLOB NOT NULL
                ) WITHOUT ROWID;
                """),
        Migration(
            version: 2,
            sql: """
                CREATE TABLE pushes_v2 (
                    id INTEGER PRIMARY KEY,
                    apns_id TEXT,
                    unique_id TEXT,
                    token TEXT,
                    channel_id TEXT,
                    bundle_id TEXT,
                    received_at REAL NOT NULL,
                    record BLOB NOT NULL
                );
                INSERT INTO pushes_v2 (id, apns_id, unique_id, token, channel_id, bundle_id, received_at, record)
                    SELECT id, apns_id, unique_id, token, channel_id, bundle_id, received_at, record FROM pushes;
                INSERT OR REPLACE INTO meta (key, value)
                    SELECT 'store.lastPushId', CAST(CAST(seq AS TEXT) AS BLOB) FROM sqlite_sequence WHERE name = 'pushes';
                DROP TABLE pushes;
                ALTER TABLE pushes_v2 RENAME TO pushes;
                CREATE INDEX pushes_channel ON pushes (channel_id) WHERE channel_id IS NOT NULL;
                """),
        Migration(
            version: 3,
            sql: """
                ALTER TABLE pushes ADD COLUMN event_seq INTEGER;
                ALTER TABLE pushes ADD COLUMN record_offset INTEGER;
                ALTER TABLE pushes ADD COLUMN record_length INTEGER;
                ALTER TABLE documents ADD COLUMN event_seq INTEGER;
                ALTER TABLE documents ADD COLUMN body_offset INTEGER;
                ALTER TABLE documents ADD COLUMN body_length INTEGER;
                """),
        Migration(
            version: 4,
            sql: """
                ALTER TABLE events ADD COLUMN doc_kind TEXT;
                ALTER TABLE events ADD COLUMN doc_id TEXT;
                ALTER TABLE events ADD COLUMN doc_state TEXT;
                ALTER TABLE events ADD COLUMN doc_offset INTEGER;
                ALTER TABLE events ADD COLUMN doc_length INTEGER;
                ALTER TABLE documents ADD COLUMN as_of INTEGER;
                INSERT OR REPLACE INTO meta (key, value)
                    SELECT 'store.documentsThrough', CAST(CAST(coalesce(max(seq), 0) AS TEXT) AS BLOB) FROM events;
                """),
        Migration(
            version: 5,
            sql: """
                INSERT OR REPLACE INTO meta (key, value) VALUES ('store.eventData', CAST('lz4-1' AS BLOB));
                """),
        Migration(
            version: 6,
            sql: """
                CREATE TABLE log_blocks (
                    id INTEGER PRIMARY KEY,
                    first_seq INTEGER,
                    last_seq INTEGER,
                    first_push_id INTEGER,
                    last_push_id INTEGER,
                    event_count INTEGER NOT NULL,
                    push_count INTEGER NOT NULL,
                    data BLOB NOT NULL
                );
                CREATE INDEX log_blocks_seq ON log_blocks (last_seq) WHERE last_seq IS NOT NULL;
                CREATE INDEX log_blocks_push ON log_blocks (last_push_id) WHERE last_push_id IS NOT NULL;
                """, convert: moveLogsIntoBlocks),
        Migration(
            version: 7,
            sql: """
                CREATE TABLE log_blocks_v7 (
                    id INTEGER PRIMARY KEY,
                    first_seq INTEGER,
                    last_seq INTEGER,
                    first_push_id INTEGER,
                    last_push_id INTEGER,
                    event_count INTEGER NOT NULL,
                    push_count INTEGER NOT NULL,
                    pushes BLOB NOT NULL,
                    events BLOB NOT NULL
                );
                """, convert: splitBlocks),
    ]

    /// The meta key under which the writer keeps the highest push log id it has handed out
    /// (decimal text), written whenever it prunes the push log: with no AUTOINCREMENT, an
    /// emptied log would otherwise restart numbering, and ids must only grow.
    package static let lastPushIDKey = "store.lastPushId"

    /// The meta key under which the writer keeps the `seq` (decimal text) through which every
    /// document an event carries is written to `documents`; later events may carry newer versions.
    package static let documentsThroughKey = "store.documentsThrough"

    /// The meta keys of the marks below which pruning removed events (a `seq`) and push log
    /// entries (an id), as decimal text (see `LogMarks`).
    static let eventsFromKey = "store.eventsFrom"
    static let pushesFromKey = "store.pushesFrom"

    /// How many records the migration to version 6 puts in one block.
    static let migratedBlockSize = 1_000

    /// Step 6's conversion: the rows of `events`, then those of `pushes`, into blocks of
    /// `migratedBlockSize`, in order; then the old tables go. A push record kept as a reference
    /// (`EmbeddedRecord`) is cut out of its event here, since the event is in another block.
    @Sendable static func moveLogsIntoBlocks(_ database: Database) throws(StoreError) {
        var builder = LogBlockBuilder()
        let events = """
            SELECT seq, at, type, device_id, bundle_id, activity_id, alarm_id,
                doc_kind, doc_id, doc_state, doc_offset, doc_length, data
            FROM events ORDER BY seq
            """
        try database.withStatement(events) { row throws(StoreError) in
            while try row.step() {
                let carried = row.text(7).map { kind in
                    LogBlock.Carried(
                        kind: kind, id: row.text(8) ?? "", state: row.text(9), offset: Int(row.int64(10)),
                        length: Int(row.int64(11)))
                }
                (row.blob(12) ?? []).withUnsafeBytes { stored in
                    builder.appendEvent(
                        seq: row.int64(0), at: row.double(1), type: row.text(2) ?? "", deviceId: row.text(3),
                        bundleId: row.text(4), activityId: row.text(5), alarmId: row.text(6), carried: carried,
                        stored: stored)
                }
                if builder.eventCount >= migratedBlockSize {
                    try insertVersion6Block(builder, into: database)
                    builder.reset()
                }
            }
        }
        try insertVersion6Block(builder, into: database)
        builder.reset()
        let pushes = """
            SELECT id, apns_id, unique_id, token, channel_id, bundle_id, received_at,
                CASE WHEN event_seq IS NULL THEN record ELSE coalesce(
                    (SELECT relay_data(data, pushes.record_offset, pushes.record_length) FROM events
                    WHERE seq = pushes.event_seq), x'') END
            FROM pushes ORDER BY id
            """
        try database.withStatement(pushes) { row throws(StoreError) in
            while try row.step() {
                let entry = PushLogEntry(
                    apnsId: row.text(1), uniqueId: row.text(2), token: row.text(3), channelId: row.text(4),
                    bundleId: row.text(5), receivedAt: row.double(6), record: row.blob(7) ?? [])
                builder.appendPush(id: row.int64(0), entry, embeddedIn: nil)
                if builder.pushCount >= migratedBlockSize {
                    try insertVersion6Block(builder, into: database)
                    builder.reset()
                }
            }
        }
        try insertVersion6Block(builder, into: database)
        try database.execute(
            """
            DROP TABLE events;
            DROP TABLE pushes;
            """)
    }

    /// Inserts `builder`'s block as version 6 kept it: both sections in `data` (entries, then
    /// events; a reader of that version reads records in any order).
    private static func insertVersion6Block(_ builder: LogBlockBuilder, into database: Database) throws(StoreError) {
        guard !builder.isEmpty else { return }
        let sql = """
            INSERT INTO log_blocks (first_seq, last_seq, first_push_id, last_push_id, event_count, push_count, data)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
            """
        try database.withStatement(sql) { statement throws(StoreError) in
            try statement.bindRanges(of: builder)
            try statement.bind(builder.pushBytes + builder.eventBytes, at: 7)
            try statement.run()
        }
    }

    /// Step 7's conversion: each version 6 block's `data` into its `pushes` and `events`
    /// sections (`LogBlock.sections(of:)`), keeping its id and ranges; then the new table takes
    /// the old one's name and indexes.
    @Sendable static func splitBlocks(_ database: Database) throws(StoreError) {
        let insert = """
            INSERT INTO log_blocks_v7 (id, first_seq, last_seq, first_push_id, last_push_id, event_count, push_count,
                pushes, events)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            """
        let select = """
            SELECT id, first_seq, last_seq, first_push_id, last_push_id, event_count, push_count, data
            FROM log_blocks ORDER BY id
            """
        try database.withStatement(select) { row throws(StoreError) in
            while try row.step() {
                let sections: (events: [UInt8], pushes: [UInt8])
                do throws(StoreError) {
                    sections = try LogBlock.sections(of: row.blob(7) ?? [])
                } catch {
                    throw .store("migrate to version 7", "log block \(row.int64(0)): \(error.message)")
                }
                try database.withStatement(insert) { statement throws(StoreError) in
                    for column in Int32(0)..<7 {
                        if row.isNull(column) {
                            try statement.bindNull(at: column + 1)
                        } else {
                            try statement.bind(row.int64(column), at: column + 1)
                        }
                    }
                    try statement.bind(sections.pushes, at: 8)
                    try statement.bind(sections.events, at: 9)
                    try statement.run()
                }
            }
        }
        try database.execute(
            """
            DROP TABLE log_blocks;
            ALTER TABLE log_blocks_v7 RENAME TO log_blocks;
            CREATE INDEX log_blocks_seq ON log_blocks (last_seq) WHERE last_seq IS NOT NULL;
            CREATE INDEX log_blocks_push ON log_blocks (last_push_id) WHERE last_push_id IS NOT NULL;
            """)
    }

    /// The version a fully migrated file has.
    package static var latestVersion: Int32 { Int32(migrations.count) }
}
