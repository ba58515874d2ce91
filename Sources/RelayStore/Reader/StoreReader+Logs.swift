extension StoreReader {
    // MARK: - Events

    /// Up to `limit` events with `seq` greater than `seq` that match `filter`, oldest first.
    public func events(after seq: Int64, limit: Int, filter: StoredEventFilter = .all) throws(StoreError) -> [StoredEvent] {
        var sql = "SELECT seq, type, at, device_id, bundle_id, activity_id, alarm_id, data FROM events WHERE seq > ?1"
        if filter.deviceId != nil { sql += " AND device_id = ?3" }
        if filter.bundleId != nil { sql += " AND bundle_id = ?4" }
        if filter.activityId != nil { sql += " AND activity_id = ?5" }
        if filter.alarmId != nil { sql += " AND alarm_id = ?6" }
        // Sorted so that the same set of types always reuses the same cached statement shape.
        let types = filter.types.map { $0.sorted() }
        if let types {
            guard types.count <= StoredEventFilter.maxTypes else {
                throw .store(
                    "read events", "filter names \(types.count) types, at most \(StoredEventFilter.maxTypes) allowed")
            }
            if types.isEmpty { return [] }
            sql += " AND type IN (" + (0..<types.count).map { "?\(7 + $0)" }.joined(separator: ", ") + ")"
        }
        sql += " ORDER BY seq LIMIT ?2"
        return try read { database throws(StoreError) in
            try database.withStatement(sql) { statement throws(StoreError) in
                try statement.bind(seq, at: 1)
                try statement.bind(Self.clamp(limit), at: 2)
                if let value = filter.deviceId { try statement.bind(value, at: 3) }
                if let value = filter.bundleId { try statement.bind(value, at: 4) }
                if let value = filter.activityId { try statement.bind(value, at: 5) }
                if let value = filter.alarmId { try statement.bind(value, at: 6) }
                for (offset, type) in (types ?? []).enumerated() { try statement.bind(type, at: Int32(7 + offset)) }
                var events: [StoredEvent] = []
                while try statement.step() {
                    events.append(
                        StoredEvent(
                            seq: statement.int64(0), type: statement.text(1) ?? "", at: statement.double(2),
                            deviceId: statement.text(3), bundleId: statement.text(4), activityId: statement.text(5),
                            alarmId: statement.text(6), data: statement.blob(7) ?? []))
                }
                return events
            }
        }
    }

    /// The smallest `seq` still in the log, or nil when it is empty.
    public func oldestEventSeq() throws(StoreError) -> Int64? {
        try optionalInteger("SELECT min(seq) FROM events")
    }

    /// The largest `seq` in the log, or nil when it is empty.
    public func latestEventSeq() throws(StoreError) -> Int64? {
        try optionalInteger("SELECT max(seq) FROM events")
    }

    // MARK: - Pushes

    /// Up to `limit` push log entries matching `filter`, newest first; `before` pages further
    /// back (only entries with an id below it). Each comes with its whole record, wherever it is kept.
    ///
    /// The log is the `pushes` rows and the entries `push.received` events hold (see
    /// `StoreSchema`): each source gives its newest `limit` matches, and the two are merged by id.
    public func pushes(filter: PushFilter = .all, before: Int64? = nil, limit: Int) throws(StoreError) -> [StoredPush] {
        let limit = Self.clamp(limit)
        return try read { database throws(StoreError) in
            let rows = try Self.pushes(in: database, sql: Self.pushRowsSQL, filter: filter, before: before, limit: limit)
            let held = try Self.pushes(in: database, sql: Self.heldPushesSQL, filter: filter, before: before, limit: limit)
            if held.isEmpty { return rows }
            if rows.isEmpty { return held }
            var merged: [StoredPush] = []
            merged.reserveCapacity(min(Int(limit), rows.count + held.count))
            var (row, hold) = (0, 0)
            while merged.count < Int(limit), row < rows.count || hold < held.count {
                if hold == held.count || (row < rows.count && rows[row].id > held[hold].id) {
                    merged.append(rows[row])
                    row += 1
                } else {
                    merged.append(held[hold])
                    hold += 1
                }
            }
            return merged
        }
    }

    /// The `pushes` rows; a record kept as a reference (`EmbeddedRecord`) is cut out of its event's data.
    private static let pushRowsSQL = """
        SELECT id, apns_id, unique_id, token, channel_id, bundle_id, received_at,
            CASE WHEN event_seq IS NULL THEN record ELSE
                (SELECT substr(data, pushes.record_offset + 1, pushes.record_length) FROM events
                WHERE seq = pushes.event_seq) END
        FROM pushes WHERE 1
        """

    /// The entries events hold, not pruned from the push log. An entry's id is never below its
    /// event's `seq`, so `seq < before` holds for every entry before `before` and bounds the scan.
    private static let heldPushesSQL = """
        SELECT push_id AS id, push_apns_id AS apns_id, push_unique_id AS unique_id, push_token AS token,
            push_channel_id AS channel_id, bundle_id, at, substr(data, push_offset + 1, push_length)
        FROM events
        WHERE push_id >= coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?8), 0)
        """

    /// Runs one source's query (`pushRowsSQL` or `heldPushesSQL`, whose columns have the same
    /// names) with the filter's conditions, newest first.
    private static func pushes(
        in database: Database, sql base: String, filter: PushFilter, before: Int64?, limit: Int64
    ) throws(StoreError) -> [StoredPush] {
        let held = base == heldPushesSQL
        var sql = base
        if before != nil { sql += held ? " AND seq < ?2 AND push_id < ?2" : " AND id < ?2" }
        if filter.token != nil { sql += held ? " AND push_token = ?3" : " AND token = ?3" }
        if filter.apnsId != nil { sql += held ? " AND push_apns_id = ?4" : " AND apns_id = ?4" }
        if filter.uniqueId != nil { sql += held ? " AND push_unique_id = ?5" : " AND unique_id = ?5" }
        if filter.channelId != nil { sql += held ? " AND push_channel_id = ?6" : " AND channel_id = ?6" }
        if filter.bundleId != nil { sql += " AND bundle_id = ?7" }
        sql += held ? " ORDER BY seq DESC LIMIT ?1" : " ORDER BY id DESC LIMIT ?1"
        return try database.withStatement(sql) { statement throws(StoreError) in
            try statement.bind(limit, at: 1)
            if let before { try statement.bind(before, at: 2) }
            if let value = filter.token { try statement.bind(value, at: 3) }
            if let value = filter.apnsId { try statement.bind(value, at: 4) }
            if let value = filter.uniqueId { try statement.bind(value, at: 5) }
            if let value = filter.channelId { try statement.bind(value, at: 6) }
            if let value = filter.bundleId { try statement.bind(value, at: 7) }
            if held { try statement.bind(StoreSchema.pushesFromKey, at: 8) }
            var pushes: [StoredPush] = []
            while try statement.step() {
                let push = PushLogEntry(
                    apnsId: statement.text(1), uniqueId: statement.text(2), token: statement.text(3),
                    channelId: statement.text(4), bundleId: statement.text(5), receivedAt: statement.double(6),
                    record: statement.blob(7) ?? [])
                pushes.append(StoredPush(id: statement.int64(0), push: push))
            }
            return pushes
        }
    }

    /// How many entries the push log holds: its rows and the entries events hold.
    public func pushCount() throws(StoreError) -> Int {
        let sql = """
            SELECT (SELECT count(*) FROM pushes) + (SELECT count(*) FROM events
                WHERE push_id >= coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?1), 0))
            """
        return try read { database throws(StoreError) in
            try database.withStatement(sql) { statement throws(StoreError) in
                try statement.bind(StoreSchema.pushesFromKey, at: 1)
                return try statement.step() ? Int(statement.int64(0)) : 0
            }
        }
    }

    private func optionalInteger(_ sql: String) throws(StoreError) -> Int64? {
        try read { database throws(StoreError) in
            try database.withStatement(sql) { statement throws(StoreError) in
                try statement.step() && !statement.isNull(0) ? statement.int64(0) : nil
            }
        }
    }
}
