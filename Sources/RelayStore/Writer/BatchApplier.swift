/// Applies `StoreBatch`es on the writer's connection, inside whatever transaction is open.
///
/// The document writes run on statements prepared once and held here, not looked up by their
/// SQL text each time. Events and push log entries are appended to the open transaction's log
/// block (`LogBlock`), which the writer inserts as one row just before COMMIT (`writeBlock`); an
/// event's data is packed (`EventPacking`) as it is appended. A document whose lookup columns did not change is
/// rewritten with an UPDATE of its body and state only, which leaves the `documents` indexes
/// alone (an upsert rewrites every indexed column it sets). Push log ids are handed out here,
/// one past the highest ever given (see `StoreSchema.lastPushIDKey`). A document body or push
/// record that an event of the same batch carries is stored as a reference to it
/// (`EmbeddedRecord`); before events are pruned, document bodies kept so are copied into their
/// rows (a push record always refers to an event of its own block, which stays while the entry does).
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
    private var flushCarried: Statement?
    /// The open transaction's log block: what it appended to the event and push logs.
    private var block = LogBlockBuilder()
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
        flushCarried = nil
    }

    /// Applies every write of `batch`, in order. When a write fails, what the batch appended to
    /// the log block is dropped and what the applier remembers of the log is forgotten, since the
    /// caller undoes the batch (in its savepoint, or with the whole transaction).
    func apply(_ batch: StoreBatch) throws(StoreError) {
        let mark = block.mark
        do throws(StoreError) {
            try applyWrites(of: batch)
        } catch {
            block.truncate(to: mark)
            lastEventSeq = nil
            flushUndone()
            throw error
        }
    }

    /// Inserts the open transaction's log block (if it holds anything); to be called just before COMMIT.
    func writeBlock() throws(StoreError) {
        try database.insertLogBlock(block)
        block.reset()
    }

    /// Forgets the open transaction's log block, and what the applier remembers of the log's end
    /// and of a flush in it: to be called whenever the transaction is rolled back, so that the
    /// next append reads the end from the table again and the documents the flush wrote count as
    /// carried still.
    func transactionUndone() {
        block.reset()
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
            try pruneEvents(from: cutoffKeepingLast(count, of: .events))
        case .pruneEventsBefore(let time):
            try pruneEvents(from: cutoffBefore(time, of: .events))
        case .prunePushesKeepingLast(let count):
            try prunePushes(from: cutoffKeepingLast(count, of: .pushes))
        case .prunePushesBefore(let time):
            try prunePushes(from: cutoffBefore(time, of: .pushes))
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

    /// The flush's writes, read from the log (the blocks after the mark, then the open
    /// transaction's): the latest carrying event of each document, unless its row is newer.
    private func flushCarriedFromLog() throws(StoreError) {
        let through = try database.metaInteger(StoreSchema.documentsThroughKey) ?? Int64.min
        var latest: [DocumentKey: LogBlock.Event] = [:]
        func note(_ contents: LogBlock.Contents) {
            for event in contents.events where event.seq > through {
                if let carried = event.carried { latest[DocumentKey(kind: carried.kind, id: carried.id)] = event }
            }
        }
        try database.forEachLogBlock(withEventsAfter: through) { contents in
            note(contents)
            return true
        }
        if !block.isEmpty { note(try LogBlock.Contents(events: block.eventBytes)) }
        let statement = try prepared(
            &flushCarried,
            """
            INSERT INTO documents (\(Self.documentColumns))
            VALUES (?1, ?2, ?3, ?4, ?5, x'', ?6, ?7, ?8, ?6)
            \(Self.documentConflict)
            WHERE documents.as_of IS NULL OR documents.as_of < excluded.as_of
            """)
        for event in latest.values {
            guard let carried = event.carried else { continue }
            try run(statement) { statement throws(StoreError) in
                try statement.bind(carried.kind, at: 1)
                try statement.bind(carried.id, at: 2)
                try statement.bind(event.deviceId, at: 3)
                try statement.bind(event.bundleId, at: 4)
                try statement.bind(carried.state, at: 5)
                try statement.bind(event.seq, at: 6)
                try statement.bind(Int64(carried.offset), at: 7)
                try statement.bind(Int64(carried.length), at: 8)
            }
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

    /// Appends `event` to the open transaction's log block, only when `seq` is past the log's
    /// end, so the log's order is its numbering. The end is read from the table once and then
    /// followed here. With `carrying`, the record also notes the document the event carries.
    private func append(_ event: StoredEvent, carrying carried: CarriedDocument?) throws(StoreError) {
        guard event.seq > (try currentLastEventSeq()) else {
            throw StoreError.store("append event", "seq \(event.seq) is not past the end of the event log")
        }
        let note = carried.map { carried in
            LogBlock.Carried(
                kind: carried.kind, id: carried.id, state: carried.state, offset: carried.embedded.offset,
                length: carried.embedded.length)
        }
        packer.withStored(event.data) { stored in
            block.appendEvent(
                seq: event.seq, at: event.at, type: event.type, deviceId: event.deviceId, bundleId: event.bundleId,
                activityId: event.activityId, alarmId: event.alarmId, carried: note, stored: stored)
        }
        lastEventSeq = event.seq
    }

    /// The highest `seq` the event log has held (`Int64.min` for a log never written), counting
    /// the open transaction's block and what pruning removed.
    private func currentLastEventSeq() throws(StoreError) -> Int64 {
        if let lastEventSeq { return lastEventSeq }
        let table = try database.optionalInteger("SELECT max(last_seq) FROM log_blocks") ?? Int64.min
        let pruned = try database.logMarks().eventsFrom
        let last = max(table, block.lastSeq ?? Int64.min, pruned == Int64.min ? Int64.min : pruned - 1)
        lastEventSeq = last
        return last
    }

    /// Appends `push` to the open transaction's log block, with only a reference to its record
    /// when `embedded` says where an event of the block holds it.
    private func append(_ push: PushLogEntry, embeddedIn embedded: EmbeddedRecord?) throws(StoreError) {
        let id = try currentLastPushID() + 1
        block.appendPush(id: id, push, embeddedIn: embedded)
        // Kept even if the batch is later undone: a skipped id is harmless, a reused one is not.
        lastPushID = id
    }

    /// The highest push log id handed out so far.
    private func currentLastPushID() throws(StoreError) -> Int64 {
        if let lastPushID { return lastPushID }
        return try loadLastPushID()
    }

    /// The highest id in the push log, or the one noted when it was last pruned, or below the
    /// prune mark, whichever is highest.
    private func loadLastPushID() throws(StoreError) -> Int64 {
        let table = try database.optionalInteger("SELECT max(last_push_id) FROM log_blocks") ?? 0
        let noted = try database.metaInteger(StoreSchema.lastPushIDKey) ?? 0
        let pruned = try database.logMarks().pushesFrom
        let last = max(table, noted, block.lastPushID ?? 0, pruned == Int64.min ? 0 : pruned - 1)
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

    /// One of the two logs a block holds, for pruning: its entries are numbered by a key (an
    /// event's `seq`, a push log entry's id) that grows with time of writing.
    private enum LogSide {
        case events, pushes

        /// The block columns of the first and last key and the entry count.
        var columns: (first: String, last: String, count: String) {
            switch self {
            case .events: ("first_seq", "last_seq", "event_count")
            case .pushes: ("first_push_id", "last_push_id", "push_count")
            }
        }

        /// The block column holding the side's entries.
        var section: String {
            switch self {
            case .events: "events"
            case .pushes: "pushes"
            }
        }

        /// The mark below which entries are pruned.
        func mark(_ marks: LogMarks) -> Int64 {
            switch self {
            case .events: marks.eventsFrom
            case .pushes: marks.pushesFrom
            }
        }

        /// Each entry's key and time in a block's `section` of this side, in order (no strings made).
        func entries(_ section: [UInt8]) throws(StoreError) -> [(key: Int64, at: Double)] {
            switch self {
            case .events: try LogBlock.rawEvents(section).map { ($0.seq, $0.at) }
            case .pushes: try LogBlock.rawPushes(section).map { ($0.id, $0.receivedAt) }
            }
        }

        /// Each entry's key and time in `builder`, in order.
        func entries(_ builder: LogBlockBuilder) -> [(key: Int64, at: Double)] {
            switch self {
            case .events: builder.eventTimes.map { ($0.seq, $0.at) }
            case .pushes: builder.pushTimes.map { ($0.id, $0.at) }
            }
        }
    }

    /// The key from which entries of `side` stay so that at most `count` remain (the key of the
    /// `count`th newest, or one past the newest for `count` 0); nil when none go.
    private func cutoffKeepingLast(_ count: Int, of side: LogSide) throws(StoreError) -> Int64? {
        let mark = side.mark(try database.logMarks())
        let pending = side.entries(block).filter { $0.key >= mark }
        if count <= 0 {
            if let last = pending.last { return last.key + 1 }
            let (_, last, _) = side.columns
            let end = try database.optionalInteger(
                "SELECT \(last) FROM log_blocks WHERE \(last) >= ?1 ORDER BY \(last) DESC LIMIT 1"
            ) { statement throws(StoreError) in try statement.bind(mark, at: 1) }
            return end.map { $0 + 1 }
        }
        var remaining = count - pending.count
        if remaining <= 0 { return pending[-remaining].key }
        let (first, last, entries) = side.columns
        var cutoff: Int64?
        let sql = """
            SELECT \(first), \(entries), id FROM log_blocks WHERE \(last) >= ?1 ORDER BY \(last) DESC
            """
        try database.withStatement(sql) { statement throws(StoreError) in
            try statement.bind(mark, at: 1)
            while try statement.step() {
                let whole = statement.int64(0) >= mark
                if whole && remaining > statement.int64(1) {
                    remaining -= Int(statement.int64(1))
                    continue
                }
                // The cut falls in this block (or the mark does): count its visible entries.
                let data = try database.optionalBlob("SELECT \(side.section) FROM log_blocks WHERE id = ?1") {
                    bound throws(StoreError) in try bound.bind(statement.int64(2), at: 1)
                }
                let visible = try side.entries(data ?? []).filter { $0.key >= mark }
                if remaining <= visible.count {
                    cutoff = visible[visible.count - remaining].key
                    return
                }
                remaining -= visible.count
            }
        }
        return cutoff
    }

    /// The key from which entries of `side` stay: that of the first entry whose time is at or
    /// after `time`, or one past the last; nil for an empty log. Cutting a prefix (rather than
    /// every old entry) keeps the log contiguous: everything after the oldest kept entry is still
    /// there, which stream resumption relies on.
    private func cutoffBefore(_ time: Double, of side: LogSide) throws(StoreError) -> Int64? {
        let mark = side.mark(try database.logMarks())
        var newest: Int64?
        var found: Int64?
        let (_, last, _) = side.columns
        let sql = "SELECT \(side.section) FROM log_blocks WHERE \(last) >= ?1 ORDER BY \(last)"
        try database.withStatement(sql) { statement throws(StoreError) in
            try statement.bind(mark, at: 1)
            while try statement.step() {
                for entry in try side.entries(statement.blob(0) ?? []) where entry.key >= mark {
                    if entry.at >= time {
                        found = entry.key
                        return
                    }
                    newest = entry.key
                }
            }
        }
        if let found { return found }
        for entry in side.entries(block) where entry.key >= mark {
            if entry.at >= time { return entry.key }
            newest = entry.key
        }
        return newest.map { $0 + 1 }
    }

    /// Removes the events below `cutoff` from the log, first writing the documents they carry to
    /// their rows and copying the document bodies kept as references into them into their rows.
    private func pruneEvents(from cutoff: Int64?) throws(StoreError) {
        guard let cutoff, cutoff > (try database.logMarks()).eventsFrom else { return }
        try flushDocuments()
        var keys: [(kind: String, id: String)] = []
        var requests: [EventSliceRequest] = []
        let sql = "SELECT kind, id, event_seq, body_offset, body_length FROM documents WHERE event_seq < ?1"
        try database.withStatement(sql) { statement throws(StoreError) in
            try statement.bind(cutoff, at: 1)
            while try statement.step() {
                keys.append((statement.text(0) ?? "", statement.text(1) ?? ""))
                requests.append(
                    EventSliceRequest(
                        seq: statement.int64(2), offset: Int(statement.int64(3)), length: Int(statement.int64(4))))
            }
        }
        let pending = block.isEmpty ? nil : try LogBlock.Contents(events: block.eventBytes)
        let bodies = try database.eventSlices(requests, pending: pending)
        for (key, body) in zip(keys, bodies) {
            let sql = """
                UPDATE documents SET body = ?3, event_seq = NULL, body_offset = NULL, body_length = NULL
                WHERE kind = ?1 AND id = ?2
                """
            try run(sql) { statement throws(StoreError) in
                try statement.bind(key.kind, at: 1)
                try statement.bind(key.id, at: 2)
                try statement.bind(body, at: 3)
            }
        }
        try setMeta(StoreSchema.eventsFromKey, Array(String(cutoff).utf8))
        try deleteHiddenBlocks()
        lastEventSeq = nil
    }

    /// Removes the push log entries below `cutoff`, noting the highest id handed out first.
    private func prunePushes(from cutoff: Int64?) throws(StoreError) {
        try rememberLastPushID()
        guard let cutoff, cutoff > (try database.logMarks()).pushesFrom else { return }
        try setMeta(StoreSchema.pushesFromKey, Array(String(cutoff).utf8))
        try deleteHiddenBlocks()
    }

    /// Deletes the blocks before the first that still holds a visible event or push log entry:
    /// blocks follow one another in both logs' order, so those are the blocks with nothing visible.
    private func deleteHiddenBlocks() throws(StoreError) {
        let marks = try database.logMarks()
        let firstVisible = """
            SELECT min(
                coalesce((SELECT id FROM log_blocks WHERE last_seq >= ?1 ORDER BY last_seq LIMIT 1), 9223372036854775807),
                coalesce((SELECT id FROM log_blocks WHERE last_push_id >= ?2 ORDER BY last_push_id LIMIT 1),
                    9223372036854775807))
            """
        let boundary = try database.optionalInteger(firstVisible) { statement throws(StoreError) in
            try statement.bind(marks.eventsFrom, at: 1)
            try statement.bind(marks.pushesFrom, at: 2)
        }
        guard let boundary else { return }
        try run("DELETE FROM log_blocks WHERE id < ?1") { statement throws(StoreError) in
            try statement.bind(boundary, at: 1)
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
