/// The queries over `log_blocks` (`LogBlock`) that the writer and the readers share.
///
/// Blocks are found by their last event `seq` or last push log id (each indexed), which grow
/// with every block: a block's events all come after those of the blocks before it, and so do
/// its push log entries. Pruning hides entries below a mark (`LogMarks`) and deletes whole blocks
/// once nothing in them is visible.
extension Database {
    /// Inserts `builder`'s block, unless it is empty.
    func insertLogBlock(_ builder: LogBlockBuilder) throws(StoreError) {
        guard !builder.isEmpty else { return }
        let sql = """
            INSERT INTO log_blocks (first_seq, last_seq, first_push_id, last_push_id, event_count, push_count, pushes, events)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            """
        try withStatement(sql) { statement throws(StoreError) in
            try statement.bindRanges(of: builder)
            let (pushes, events) = (builder.pushBytes, builder.eventBytes)
            let bound = pushes.withUnsafeBytes { pushes in
                events.withUnsafeBytes { events in
                    Result { () throws(StoreError) in
                        try statement.bindBorrowed(pushes, at: 7)
                        try statement.bindBorrowed(events, at: 8)
                        try statement.run()
                    }
                }
            }
            try bound.get()
        }
    }

    /// Calls `body` with each block holding an event after `seq` (its events read), oldest first,
    /// until it returns false.
    func forEachLogBlock(withEventsAfter seq: Int64, _ body: (LogBlock.Contents) throws(StoreError) -> Bool)
        throws(StoreError)
    {
        try forEachEventSection(after: seq) { section throws(StoreError) in
            try body(LogBlock.Contents(events: section))
        }
    }

    /// Calls `body` with the `events` section of each block that `forEachLogBlock(withEventsAfter:)`
    /// reads, as stored, for a filtered read that compares events without making strings of them.
    func forEachEventSection(after seq: Int64, _ body: ([UInt8]) throws(StoreError) -> Bool) throws(StoreError) {
        let sql = "SELECT events FROM log_blocks WHERE last_seq > ?1 ORDER BY last_seq"
        try withStatement(sql) { statement throws(StoreError) in
            try statement.bind(seq, at: 1)
            while try statement.step() {
                guard try body(statement.blob(0) ?? []) else { return }
            }
        }
    }

    /// Calls `body` with each block holding a push log entry with an id of at least `lowest`
    /// (and, with `before`, one below it), newest first, until it returns false. Only the entries
    /// are read, not the events (a record kept in an event is read with `eventSlices`).
    func forEachLogBlock(
        withPushesFrom lowest: Int64, before: Int64?, _ body: (LogBlock.Contents) throws(StoreError) -> Bool
    ) throws(StoreError) {
        try forEachPushSection(from: lowest, before: before) { section throws(StoreError) in
            try body(LogBlock.Contents(pushes: section))
        }
    }

    /// Calls `body` with the `pushes` section of each block that `forEachLogBlock(withPushesFrom:)`
    /// reads, as stored, for a search that reads entries without making strings of them.
    func forEachPushSection(from lowest: Int64, before: Int64?, _ body: ([UInt8]) throws(StoreError) -> Bool)
        throws(StoreError)
    {
        let sql = """
            SELECT pushes FROM log_blocks WHERE last_push_id >= ?1 AND first_push_id < ?2 ORDER BY last_push_id DESC
            """
        try withStatement(sql) { statement throws(StoreError) in
            try statement.bind(lowest, at: 1)
            try statement.bind(before ?? Int64.max, at: 2)
            while try statement.step() {
                guard try body(statement.blob(0) ?? []) else { return }
            }
        }
    }

    /// The block that holds event `seq` (its events read), if any does.
    func logBlock(holdingEvent seq: Int64) throws(StoreError) -> LogBlock.Contents? {
        let sql = "SELECT events FROM log_blocks WHERE last_seq >= ?1 AND first_seq <= ?1 ORDER BY last_seq LIMIT 1"
        return try withStatement(sql) { statement throws(StoreError) in
            try statement.bind(seq, at: 1)
            return try statement.step() ? try LogBlock.Contents(events: statement.blob(0) ?? []) : nil
        }
    }

    /// `length` bytes at `offset` in the unpacked data of event `seq`, wherever its block is;
    /// empty when no block holds it.
    func eventDataSlice(seq: Int64, offset: Int, length: Int) throws(StoreError) -> [UInt8] {
        try logBlock(holdingEvent: seq)?.slice(seq: seq, offset: offset, length: length) ?? []
    }

    /// The single integer `sql` answers (after `bind`), nil when it answers no row or NULL.
    func optionalInteger(_ sql: String, bind: (Statement) throws(StoreError) -> Void = { _ in }) throws(StoreError)
        -> Int64?
    {
        try withStatement(sql) { statement throws(StoreError) -> Int64? in
            try bind(statement)
            return try statement.step() && !statement.isNull(0) ? statement.int64(0) : nil
        }
    }

    /// The single blob `sql` answers (after `bind`), nil when it answers no row or NULL.
    func optionalBlob(_ sql: String, bind: (Statement) throws(StoreError) -> Void) throws(StoreError) -> [UInt8]? {
        try withStatement(sql) { statement throws(StoreError) -> [UInt8]? in
            try bind(statement)
            return try statement.step() && !statement.isNull(0) ? statement.blob(0) : nil
        }
    }

    /// The integer (decimal text) stored in meta under `key`, or nil.
    func metaInteger(_ key: String) throws(StoreError) -> Int64? {
        try optionalInteger("SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?1") { statement throws(StoreError) in
            try statement.bind(key, at: 1)
        }
    }

    /// Where the visible logs start (see `LogMarks`).
    func logMarks() throws(StoreError) -> LogMarks {
        LogMarks(
            eventsFrom: try metaInteger(StoreSchema.eventsFromKey) ?? Int64.min,
            pushesFrom: try metaInteger(StoreSchema.pushesFromKey) ?? Int64.min)
    }
}

/// Where each log starts: pruning moves a mark past what it removes, and entries below a mark
/// are gone for every reader, though their block stays until nothing in it is visible (a block
/// holds both logs, which are pruned separately).
struct LogMarks: Equatable {
    /// The lowest event `seq` still in the event log.
    var eventsFrom: Int64
    /// The lowest push log id still in the push log.
    var pushesFrom: Int64
}

/// A piece of an event's unpacked data that a row refers to (`EmbeddedRecord`), to be read.
struct EventSliceRequest {
    var seq: Int64
    var offset: Int
    var length: Int
}

extension Database {
    /// The bytes each request names, in the order asked (empty where no block holds the event),
    /// reading each block once however many requests fall in it.
    func eventSlices(_ requests: [EventSliceRequest], pending: LogBlock.Contents? = nil) throws(StoreError)
        -> [[UInt8]]
    {
        var slices = [[UInt8]](repeating: [], count: requests.count)
        let order = requests.indices.sorted { requests[$0].seq < requests[$1].seq }
        var block: LogBlock.Contents?
        for index in order {
            let request = requests[index]
            if let pending, pending.event(seq: request.seq) != nil {
                slices[index] = try pending.slice(seq: request.seq, offset: request.offset, length: request.length)
                continue
            }
            if block?.event(seq: request.seq) == nil {
                guard let found = try logBlock(holdingEvent: request.seq) else { continue }
                block = found
            }
            slices[index] = try block?.slice(seq: request.seq, offset: request.offset, length: request.length) ?? []
        }
        return slices
    }
}

extension Statement {
    /// Binds parameters 1 to 6 of an insert into `log_blocks` to `builder`'s ranges and counts:
    /// first and last event `seq`, first and last push log id, event count, push count.
    func bindRanges(of builder: LogBlockBuilder) throws(StoreError) {
        try bind(builder.firstSeq, at: 1)
        try bind(builder.lastSeq, at: 2)
        try bind(builder.firstPushID, at: 3)
        try bind(builder.lastPushID, at: 4)
        try bind(Int64(builder.eventCount), at: 5)
        try bind(Int64(builder.pushCount), at: 6)
    }
}
