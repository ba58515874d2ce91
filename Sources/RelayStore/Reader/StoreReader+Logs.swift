extension StoreReader {
    // MARK: - Events

    /// Up to `limit` events with `seq` greater than `seq` that match `filter`, oldest first.
    public func events(after seq: Int64, limit: Int, filter: StoredEventFilter = .all) throws(StoreError)
        -> [StoredEvent]
    {
        var sql =
            "SELECT seq, type, at, device_id, bundle_id, activity_id, alarm_id, relay_data(data) FROM events WHERE seq > ?1"
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
    public func pushes(filter: PushFilter = .all, before: Int64? = nil, limit: Int) throws(StoreError) -> [StoredPush] {
        // A record kept as a reference (`EmbeddedRecord`) is cut out of its event's data.
        var sql = """
            SELECT id, apns_id, unique_id, token, channel_id, bundle_id, received_at,
                CASE WHEN event_seq IS NULL THEN record ELSE
                    (SELECT relay_data(data, pushes.record_offset, pushes.record_length) FROM events
                    WHERE seq = pushes.event_seq) END
            FROM pushes WHERE 1
            """
        if before != nil { sql += " AND id < ?2" }
        if filter.token != nil { sql += " AND token = ?3" }
        if filter.apnsId != nil { sql += " AND apns_id = ?4" }
        if filter.uniqueId != nil { sql += " AND unique_id = ?5" }
        if filter.channelId != nil { sql += " AND channel_id = ?6" }
        if filter.bundleId != nil { sql += " AND bundle_id = ?7" }
        sql += " ORDER BY id DESC LIMIT ?1"
        return try read { database throws(StoreError) in
            try database.withStatement(sql) { statement throws(StoreError) in
                try statement.bind(Self.clamp(limit), at: 1)
                if let before { try statement.bind(before, at: 2) }
                if let value = filter.token { try statement.bind(value, at: 3) }
                if let value = filter.apnsId { try statement.bind(value, at: 4) }
                if let value = filter.uniqueId { try statement.bind(value, at: 5) }
                if let value = filter.channelId { try statement.bind(value, at: 6) }
                if let value = filter.bundleId { try statement.bind(value, at: 7) }
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
    }

    /// How many entries the push log holds.
    public func pushCount() throws(StoreError) -> Int {
        Int(try optionalInteger("SELECT count(*) FROM pushes") ?? 0)
    }

    private func optionalInteger(_ sql: String) throws(StoreError) -> Int64? {
        try read { database throws(StoreError) in
            try database.withStatement(sql) { statement throws(StoreError) in
                try statement.step() && !statement.isNull(0) ? statement.int64(0) : nil
            }
        }
    }
}
