/// Applies `StoreBatch`es on the writer's connection, inside whatever transaction is open.
///
/// The writes every push makes (a document, two events, a push log entry) run on statements
/// prepared once and held here, not looked up by their SQL text each time. An event's data is
/// packed (`EventPacking`) as it is bound. A document whose lookup columns did not change is
/// rewritten with an UPDATE of its body and state only, which leaves the `documents` indexes
/// alone (an upsert rewrites every indexed column it sets). Push log ids are handed out here,
/// one past the highest ever given (see `StoreSchema.lastPushIDKey`). A document body or push
/// record that an event of the same batch carries is stored as a reference to it
/// (`EmbeddedRecord`); before events are pruned, such values are copied into their rows.
///
/// A document carried by an event of its batch (an activity's `activity.updated`, say) is not
/// written to its row at all: the event's row says which document it carries, and about once a
/// second (`flushDocumentsIfDue`) the latest version of each document carried since is written
/// to its row (from what the applier noted; after a start or a rollback, read from the log
/// itself). A push to one of many activities used to dirty a page of `documents` in every
/// commit; now a document is written about once a second, however often it changes. Documents
/// written otherwise (a body of their own, a delete) are written at once, marked with the log
/// position they are current at (`as_of`), so that an older copy in the log never overrides
/// them; a delete of a document the log carries since the last flush flushes first, or the log
/// would bring it back. `StoreReader` reads documents the same way, rows and log together (see
/// `StoreSchema`), and the next flush after a crash picks up what the log carried, so nothing
/// waits for a flush to be durable.
///
/// Used only by the writer thread.
final class BatchApplier {
    private let database: Database
    /// Where the hot statements' text values are copied to be bound without SQLite copying them.
    private let texts = TextScratch()
    /// Packs each event's data as the log stores it (`EventPacking`).
    private let packer = EventPacker()
    private var updateDocument: Statement?
    private var upsertDocument: Statement?
    private var appendEvent: Statement?
    private var appendPush: Statement?
    private var flushCarried: Statement?
    /// The highest push log id handed out; nil until the first push needs it.
    private var lastPushID: Int64?
    /// The highest event `seq` committed or applied in the open transaction (`Int64.min` for an
    /// empty log); nil until an append needs it, and again after a rollback or a prune.
    private var lastEventSeq: Int64?

    /// How often carried documents are written to their rows: at most `documentFlushInterval`
    /// after the last flush, or once `documentFlushEvents` events have carried documents since.
    let documentFlushInterval: Duration
    let documentFlushEvents: Int
    /// The latest version of each document the log carries since the last flush, which the next
    /// flush writes; deleting one of them flushes first. Trusted only while `carriedUnknown` is false.
    private var carried: [DocumentKey: CarriedDocument] = [:]
    /// Events that carried documents since the last flush.
    private var carryingEvents = 0
    /// Whether the log may carry documents that `carried` does not hold: from the start (the last
    /// run may have stopped before its flush) and after a rollback, until a flush commits. A flush
    /// then reads what the log carries from the log itself.
    private var carriedUnknown = true
    private var flushedInTransaction = false
    private var lastFlush = ContinuousClock.now

    /// A document's identity.
    private struct DocumentKey: Hashable {
        var kind: String
        var id: String
    }

    /// A document an event carries, left to the next flush: what the event's row notes, and the
    /// lookup columns its row takes from the event.
    private struct CarriedDocument {
        var seq: Int64
        var kind: String
        var id: String
        var state: String?
        var deviceId: String?
        var bundleId: String?
        var embedded: EmbeddedRecord
        /// Written since in a row of its own (not carried): the flush leaves the row alone, but a
        /// delete must still flush, or the log's copy would come back.
        var superseded = false
    }

    /// Applies batches on `database`, writing carried documents to their rows as often as the
    /// two limits say.
    init(database: Database, documentFlushInterval: Duration = .seconds(1), documentFlushEvents: Int = 16_384) {
        self.database = database
        self.documentFlushInterval = documentFlushInterval
        self.documentFlushEvents = max(1, documentFlushEvents)
    }

    /// Finalizes the held statements, so that the connection can close at once.
    func close() {
        updateDocument = nil
        upsertDocument = nil
        appendEvent = nil
        appendPush = nil
        flushCarried = nil
    }

    /// Applies every write of `batch`, in order. When a write fails, what the applier remembers
    /// of the log is forgotten, since the caller undoes the batch (or the whole transaction).
    func apply(_ batch: StoreBatch) throws(StoreError) {
        do throws(StoreError) {
            try applyWrites(of: batch)
        } catch {
            transactionUndone()
            throw error
        }
    }

    /// Forgets what the applier remembers of the log's end and of a flush in the open transaction:
    /// to be called whenever writes it applied are rolled back, so that the next append reads the
    /// end from the table again and the documents the flush wrote count as carried still.
    func transactionUndone() {
        lastEventSeq = nil
        flushUndone()
    }

    /// To be called when a rollback (of a transaction, batch or savepoint) undid writes: what the
    /// applier holds of carried documents may name events that are gone, and a flush may be undone,
    /// so the next flush reads the log instead.
    func flushUndone() {
        carried = [:]
        carriedUnknown = true
        flushedInTransaction = false
    }

    /// To be called once the open transaction has committed.
    func transactionCommitted() {
        guard flushedInTransaction else { return }
        flushedInTransaction = false
        carriedUnknown = false
        lastFlush = ContinuousClock.now
    }

    private func applyWrites(of batch: StoreBatch) throws(StoreError) {
        // The batch's events, where its documents and push records may be found: they commit together.
        var events: [StoredEvent] = []
        var documentWrites = 0
        for write in batch.writes {
            switch write {
            case .appendEvent(let event): events.append(event)
            case .upsertDocument, .deleteDocument: documentWrites += 1
            default: break
            }
        }
        // A document the batch writes twice is written at once both times (see `carried`); counted
        // only when the batch writes more than one document.
        let writesPerDocument = documentWrites > 1 ? Self.writesPerDocument(batch) : [:]
        // Documents left to the log, by the event that carries each (the first apart: usually the only one).
        var firstCarried: CarriedDocument?
        var moreCarried: [Int64: CarriedDocument] = [:]
        var eventsAppended = 0
        for write in batch.writes {
            switch write {
            case .upsertDocument(let document):
                let located = EmbeddedRecord.locate(document.body, in: events)
                let embedded = located?.record
                if let carried = Self.carried(
                    document, embeddedIn: located, events: events, after: eventsAppended,
                    writtenOnce: documentWrites == 1
                        || writesPerDocument[DocumentKey(kind: document.kind, id: document.id)] == 1),
                    firstCarried?.seq != carried.seq, moreCarried[carried.seq] == nil
                {
                    if firstCarried == nil { firstCarried = carried } else { moreCarried[carried.seq] = carried }
                    self.carried[DocumentKey(kind: document.kind, id: document.id)] = carried
                    carryingEvents += 1
                } else {
                    // Current as of this batch: no copy an earlier event carries may override it.
                    let asOf = max(try currentLastEventSeq(), events.last?.seq ?? Int64.min)
                    try upsert(document, embeddedIn: embedded, asOf: asOf)
                    self.carried[DocumentKey(kind: document.kind, id: document.id)]?.superseded = true
                }
            case .appendEvent(let event):
                let carried = firstCarried?.seq == event.seq ? firstCarried : moreCarried[event.seq]
                try append(event, carrying: carried)
                eventsAppended += 1
            default:
                try apply(write, carriedBy: events)
            }
        }
    }

    /// `document` as left to the log, when it can be: its body is carried by one of `events` not
    /// yet appended (at `firstUnappended` or later), with the same device and app (the row's
    /// lookup columns come from the event's), and the batch writes it only once.
    private static func carried(
        _ document: StoredDocument, embeddedIn located: (record: EmbeddedRecord, position: Int)?,
        events: [StoredEvent], after firstUnappended: Int, writtenOnce: Bool
    ) -> CarriedDocument? {
        guard writtenOnce, let (embedded, position) = located, position >= firstUnappended,
            events[position].deviceId == document.deviceId, events[position].bundleId == document.bundleId
        else { return nil }
        return CarriedDocument(
            seq: embedded.seq, kind: document.kind, id: document.id, state: document.state,
            deviceId: document.deviceId, bundleId: document.bundleId, embedded: embedded)
    }

    /// How many times `batch` writes (or deletes) each document.
    private static func writesPerDocument(_ batch: StoreBatch) -> [DocumentKey: Int] {
        var counts: [DocumentKey: Int] = [:]
        for write in batch.writes {
            switch write {
            case .upsertDocument(let document):
                counts[DocumentKey(kind: document.kind, id: document.id), default: 0] += 1
            case .deleteDocument(let kind, let id): counts[DocumentKey(kind: kind, id: id), default: 0] += 1
            default: break
            }
        }
        return counts
    }

    /// Applies one write that is neither a document upsert nor an event; a push record that one of
    /// `events` carries is stored as a reference to it.
    private func apply(_ write: StoreBatch.Write, carriedBy events: [StoredEvent]) throws(StoreError) {
        switch write {
        case .upsertDocument, .appendEvent:
            preconditionFailure("applied by applyWrites")
        case .deleteDocument(let kind, let id):
            // Else the flush, or a reader, would bring back the copy the log carries.
            if carriedUnknown || carried[DocumentKey(kind: kind, id: id)] != nil { try flushDocuments() }
            try run("DELETE FROM documents WHERE kind = ?1 AND id = ?2") { statement throws(StoreError) in
                try statement.bind(kind, at: 1)
                try statement.bind(id, at: 2)
            }
        case .appendPush(let push):
            try append(push, embeddedIn: EmbeddedRecord.find(push.record, in: events))
        case .setMeta(let key, let value):
            try setMeta(key, value)
        case .deleteMeta(let key):
            try run("DELETE FROM meta WHERE key = ?1") { statement throws(StoreError) in try statement.bind(key, at: 1)
            }
        case .pruneEventsKeepingLast(let count):
            try pruneEvents(below: cutoffKeepingLast(count, table: "events", key: "seq"))
        case .pruneEventsBefore(let time):
            try pruneEvents(below: cutoffBefore(time, table: "events", key: "seq", time: "at"))
        case .prunePushesKeepingLast(let count):
            try delete(below: cutoffKeepingLast(count, table: "pushes", key: "id"), table: "pushes", key: "id")
            try rememberLastPushID()
        case .prunePushesBefore(let time):
            try delete(
                below: cutoffBefore(time, table: "pushes", key: "id", time: "received_at"), table: "pushes", key: "id")
            try rememberLastPushID()
        }
    }

    // MARK: - Documents

    /// Writes `document`'s row, with only a reference to its body when `embedded` says where an
    /// event holds it, current as of log position `asOf`.
    private func upsert(_ document: StoredDocument, embeddedIn embedded: EmbeddedRecord?, asOf: Int64)
        throws(StoreError)
    {
        let body = embedded == nil ? document.body : []
        let update = try prepared(
            &updateDocument,
            """
            UPDATE documents SET state = ?3, body = ?4, event_seq = ?7, body_offset = ?8, body_length = ?9, as_of = ?10
            WHERE kind = ?1 AND id = ?2 AND device_id IS ?5 AND bundle_id IS ?6
            """
        )
        try run(update, borrowing: body, at: 4) { statement throws(StoreError) in
            try statement.bind(document.kind, at: 1, copiedInto: texts)
            try statement.bind(document.id, at: 2, copiedInto: texts)
            try statement.bind(document.state, at: 3, copiedInto: texts)
            try statement.bind(document.deviceId, at: 5, copiedInto: texts)
            try statement.bind(document.bundleId, at: 6, copiedInto: texts)
            try Self.bind(embedded, at: 7, statement)
            try statement.bind(asOf, at: 10)
        }
        if database.changes == 1 { return }
        // New, or its device or app changed: write every column.
        let upsert = try prepared(
            &upsertDocument,
            """
            INSERT INTO documents (\(Self.documentColumns))
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
            \(Self.documentConflict)
            """)
        try run(upsert, borrowing: body, at: 6) { statement throws(StoreError) in
            try statement.bind(document.kind, at: 1, copiedInto: texts)
            try statement.bind(document.id, at: 2, copiedInto: texts)
            try statement.bind(document.deviceId, at: 3, copiedInto: texts)
            try statement.bind(document.bundleId, at: 4, copiedInto: texts)
            try statement.bind(document.state, at: 5, copiedInto: texts)
            try Self.bind(embedded, at: 7, statement)
            try statement.bind(asOf, at: 10)
        }
    }

    /// Every column of a `documents` row, in the order the upserts give them.
    private static let documentColumns =
        "kind, id, device_id, bundle_id, state, body, event_seq, body_offset, body_length, as_of"
    /// What an upsert of a whole `documents` row does when the row exists: replace every column.
    private static let documentConflict = """
        ON CONFLICT (kind, id) DO UPDATE SET device_id = excluded.device_id, bundle_id = excluded.bundle_id,
        state = excluded.state, body = excluded.body, event_seq = excluded.event_seq,
        body_offset = excluded.body_offset, body_length = excluded.body_length, as_of = excluded.as_of
        """

    /// Flushes carried documents (`flushDocuments`) when the interval has passed since the last
    /// flush, or enough events have carried documents; call inside the transaction of a group.
    func flushDocumentsIfDue() throws(StoreError) {
        let due =
            carryingEvents >= documentFlushEvents
            || ((carryingEvents > 0 || carriedUnknown) && ContinuousClock.now - lastFlush >= documentFlushInterval)
        if due { try flushDocuments() }
    }

    /// Writes to `documents` the latest version of each document that an event after the mark
    /// (`StoreSchema.documentsThroughKey`) carries, unless its row is newer, then moves the mark to
    /// the log's end. The versions come from what the applier noted since the last flush, one
    /// write per document; when it cannot trust that (`carriedUnknown`), from the log, in one
    /// statement that reads every event since the mark (tens of milliseconds for a second's pushes).
    func flushDocuments() throws(StoreError) {
        let end = try currentLastEventSeq()
        if carriedUnknown {
            try flushCarriedFromLog()
        } else {
            for document in carried.values where !document.superseded {
                try upsert(
                    StoredDocument(
                        kind: document.kind, id: document.id, deviceId: document.deviceId, bundleId: document.bundleId,
                        state: document.state, body: []),
                    embeddedIn: document.embedded, asOf: document.seq)
            }
        }
        if end != Int64.min { try setMeta(StoreSchema.documentsThroughKey, Array(String(end).utf8)) }
        carried = [:]
        carryingEvents = 0
        flushedInTransaction = true
    }

    /// The flush's writes, read from the log: the latest carrying event of each document after the mark.
    private func flushCarriedFromLog() throws(StoreError) {
        let statement = try prepared(
            &flushCarried,
            """
            INSERT INTO documents (\(Self.documentColumns))
            SELECT doc_kind, doc_id, device_id, bundle_id, doc_state, x'', seq, doc_offset, doc_length, seq FROM (
                SELECT doc_kind, doc_id, device_id, bundle_id, doc_state, max(seq) AS seq, doc_offset, doc_length
                FROM events
                WHERE seq > coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?1), -9223372036854775808)
                    AND doc_kind IS NOT NULL
                GROUP BY doc_kind, doc_id)
            WHERE true
            \(Self.documentConflict)
            WHERE documents.as_of IS NULL OR documents.as_of < excluded.as_of
            """)
        try run(statement) { statement throws(StoreError) in
            try statement.bind(StoreSchema.documentsThroughKey, at: 1)
        }
    }

    /// Binds where `embedded` is (its event, offset and length) at `index` and the next two
    /// parameters, or three NULLs for a value stored in its own row.
    private static func bind(_ embedded: EmbeddedRecord?, at index: Int32, _ statement: Statement) throws(StoreError) {
        try statement.bind(embedded?.seq, at: index)
        try statement.bind(embedded.map { Int64($0.offset) }, at: index + 1)
        try statement.bind(embedded.map { Int64($0.length) }, at: index + 2)
    }

    // MARK: - Logs

    /// Inserts only when `seq` is past the log's end, so the log's order is its numbering.
    ///
    /// The end is read from the table once and then followed here: checking it in the INSERT
    /// itself (`INSERT ... SELECT ... WHERE ?1 > (SELECT max(seq) FROM events)`) made SQLite
    /// stage every row in a temporary table, since the statement reads the table it writes,
    /// which was most of what a push cost the writer.
    /// With `carrying`, the row also notes the document the event carries.
    private func append(_ event: StoredEvent, carrying carried: CarriedDocument?) throws(StoreError) {
        guard event.seq > (try currentLastEventSeq()) else {
            throw StoreError.store("append event", "seq \(event.seq) is not past the end of the event log")
        }
        let statement = try prepared(
            &appendEvent,
            """
            INSERT INTO events (seq, type, at, device_id, bundle_id, activity_id, alarm_id, data,
                doc_kind, doc_id, doc_state, doc_offset, doc_length)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
            """)
        try packer.withStored(event.data) { (stored) throws(StoreError) in
            try run(statement, borrowing: stored, at: 8) { statement throws(StoreError) in
                try statement.bind(event.seq, at: 1)
                try statement.bind(event.type, at: 2, copiedInto: texts)
                try statement.bind(event.at, at: 3)
                try statement.bind(event.deviceId, at: 4, copiedInto: texts)
                try statement.bind(event.bundleId, at: 5, copiedInto: texts)
                try statement.bind(event.activityId, at: 6, copiedInto: texts)
                try statement.bind(event.alarmId, at: 7, copiedInto: texts)
                try statement.bind(carried?.kind, at: 9, copiedInto: texts)
                try statement.bind(carried?.id, at: 10, copiedInto: texts)
                try statement.bind(carried?.state, at: 11, copiedInto: texts)
                try statement.bind(carried.map { Int64($0.embedded.offset) }, at: 12)
                try statement.bind(carried.map { Int64($0.embedded.length) }, at: 13)
            }
        }
        lastEventSeq = event.seq
    }

    /// The highest `seq` in the event log, `Int64.min` when it is empty.
    private func currentLastEventSeq() throws(StoreError) -> Int64 {
        if let lastEventSeq { return lastEventSeq }
        let last = try optionalInteger("SELECT max(seq) FROM events") { _ throws(StoreError) in } ?? Int64.min
        lastEventSeq = last
        return last
    }

    /// Appends `push`, with only a reference to its record when `embedded` says where an event holds it.
    private func append(_ push: PushLogEntry, embeddedIn embedded: EmbeddedRecord?) throws(StoreError) {
        let id = try currentLastPushID() + 1
        let statement = try prepared(
            &appendPush,
            """
            INSERT INTO pushes (id, apns_id, unique_id, token, channel_id, bundle_id, received_at, record,
                event_seq, record_offset, record_length)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
            """)
        try run(statement, borrowing: embedded == nil ? push.record : [], at: 8) { statement throws(StoreError) in
            try statement.bind(id, at: 1)
            try statement.bind(push.apnsId, at: 2, copiedInto: texts)
            try statement.bind(push.uniqueId, at: 3, copiedInto: texts)
            try statement.bind(push.token, at: 4, copiedInto: texts)
            try statement.bind(push.channelId, at: 5, copiedInto: texts)
            try statement.bind(push.bundleId, at: 6, copiedInto: texts)
            try statement.bind(push.receivedAt, at: 7)
            try Self.bind(embedded, at: 9, statement)
        }
        // Kept even if the batch is later undone: a skipped id is harmless, a reused one is not.
        lastPushID = id
    }

    /// The highest push log id handed out so far.
    private func currentLastPushID() throws(StoreError) -> Int64 {
        if let lastPushID { return lastPushID }
        return try loadLastPushID()
    }

    /// The highest id in the push log or, when pruning emptied it, the one noted at the prune.
    private func loadLastPushID() throws(StoreError) -> Int64 {
        let sql = """
            SELECT max(coalesce((SELECT max(id) FROM pushes), 0),
                coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?1), 0))
            """
        let last = try database.withStatement(sql) { statement throws(StoreError) -> Int64 in
            try statement.bind(StoreSchema.lastPushIDKey, at: 1)
            return try statement.step() ? statement.int64(0) : 0
        }
        lastPushID = last
        return last
    }

    /// Notes the highest id handed out, so that numbering goes on from it even if the push log is empty.
    private func rememberLastPushID() throws(StoreError) {
        let last = try currentLastPushID()
        try setMeta(StoreSchema.lastPushIDKey, Array(String(last).utf8))
    }

    private func setMeta(_ key: String, _ value: [UInt8]) throws(StoreError) {
        let sql = "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
        try run(sql) { statement throws(StoreError) in
            try statement.bind(key, at: 1)
            try statement.bind(value, at: 2)
        }
    }

    /// The `key` below which rows of `table` go so that at most `count` remain; nil when none go.
    private func cutoffKeepingLast(_ count: Int, table: String, key: String) throws(StoreError) -> Int64? {
        let sql =
            count > 0
            ? "SELECT \(key) FROM \(table) ORDER BY \(key) DESC LIMIT 1 OFFSET ?1"
            : "SELECT max(\(key)) + 1 FROM \(table)"
        return try optionalInteger(sql) { statement throws(StoreError) in
            if count > 0 { try statement.bind(Int64(count - 1), at: 1) }
        }
    }

    /// The `key` below which rows of `table` go: that of the first row whose `time` is at or after
    /// `cutoff`, or past the last row; nil for an empty table. Deleting a prefix (rather than
    /// every old row) keeps the log contiguous: everything after the oldest kept row is still
    /// there, which stream resumption relies on.
    private func cutoffBefore(_ cutoff: Double, table: String, key: String, time: String) throws(StoreError) -> Int64? {
        let sql = """
            SELECT coalesce(
                (SELECT \(key) FROM \(table) WHERE \(time) >= ?1 ORDER BY \(key) LIMIT 1),
                (SELECT max(\(key)) + 1 FROM \(table)))
            """
        return try optionalInteger(sql) { statement throws(StoreError) in try statement.bind(cutoff, at: 1) }
    }

    /// Deletes the events below `cutoff`, first copying the push records and document bodies they
    /// carry into the rows that only referred to them.
    private func pruneEvents(below cutoff: Int64?) throws(StoreError) {
        guard let cutoff else { return }
        // Documents the pruned events carry go to their rows first.
        try flushDocuments()
        for (table, value, offset, length) in [
            ("pushes", "record", "record_offset", "record_length"), ("documents", "body", "body_offset", "body_length"),
        ] {
            let sql = """
                UPDATE \(table) SET \(value) = coalesce(
                        (SELECT relay_data(data, \(table).\(offset), \(table).\(length)) FROM events
                        WHERE seq = \(table).event_seq), x''),
                    event_seq = NULL, \(offset) = NULL, \(length) = NULL
                WHERE event_seq < ?1
                """
            try run(sql) { statement throws(StoreError) in try statement.bind(cutoff, at: 1) }
        }
        try delete(below: cutoff, table: "events", key: "seq")
        lastEventSeq = nil
    }

    /// Deletes the rows of `table` whose `key` is below `cutoff` (none when it is nil).
    private func delete(below cutoff: Int64?, table: String, key: String) throws(StoreError) {
        guard let cutoff else { return }
        try run("DELETE FROM \(table) WHERE \(key) < ?1") { statement throws(StoreError) in
            try statement.bind(cutoff, at: 1)
        }
    }

    /// The single integer `sql` answers, nil when it answers no row or NULL.
    private func optionalInteger(_ sql: String, bind: (Statement) throws(StoreError) -> Void) throws(StoreError)
        -> Int64?
    {
        try database.withStatement(sql) { statement throws(StoreError) -> Int64? in
            try bind(statement)
            return try statement.step() && !statement.isNull(0) ? statement.int64(0) : nil
        }
    }

    // MARK: - Statements

    /// The statement in `slot`, prepared from `sql` the first time (only then is `sql` built).
    private func prepared(_ slot: inout Statement?, _ sql: @autoclosure () -> String) throws(StoreError) -> Statement {
        if let statement = slot { return statement }
        let statement = try database.prepare(sql())
        slot = statement
        return statement
    }

    /// Binds with `bind` and runs `statement` to completion, then resets it.
    private func run(_ statement: Statement, bind: (Statement) throws(StoreError) -> Void) throws(StoreError) {
        defer { statement.reset() }
        try bind(statement)
        try statement.run()
    }

    /// Like `run(_:bind:)`, with `blob` (the large value: a document body, event data, a push
    /// record) bound at `index` without SQLite copying it.
    private func run(
        _ statement: Statement, borrowing blob: [UInt8], at index: Int32,
        bind: (Statement) throws(StoreError) -> Void
    ) throws(StoreError) {
        let outcome = blob.withUnsafeBytes { bytes -> Result<Void, StoreError> in
            Result { () throws(StoreError) in try run(statement, borrowing: bytes, at: index, bind: bind) }
        }
        try outcome.get()
    }

    /// `run(_:borrowing:at:bind:)` for bytes the caller holds.
    private func run(
        _ statement: Statement, borrowing bytes: UnsafeRawBufferPointer, at index: Int32,
        bind: (Statement) throws(StoreError) -> Void
    ) throws(StoreError) {
        defer { statement.reset() }
        // The last statement bound to `texts` was reset when its run ended.
        texts.clear()
        try bind(statement)
        try statement.bindBorrowed(bytes, at: index)
        try statement.run()
    }

    /// Binds with `bind` and runs the cached statement for `sql` to completion.
    private func run(_ sql: String, bind: (Statement) throws(StoreError) -> Void) throws(StoreError) {
        try database.withStatement(sql) { statement throws(StoreError) in
            try bind(statement)
            try statement.run()
        }
    }
}
