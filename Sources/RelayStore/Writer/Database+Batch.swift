extension Database {
    /// Applies every write of `batch` on this connection, inside whatever transaction is open.
    func apply(_ batch: StoreBatch) throws(StoreError) {
        for write in batch.writes {
            try apply(write)
        }
    }

    private func apply(_ write: StoreBatch.Write) throws(StoreError) {
        switch write {
        case .upsertDocument(let document):
            try upsert(document)
        case .deleteDocument(let kind, let id):
            try run("DELETE FROM documents WHERE kind = ?1 AND id = ?2") { statement throws(StoreError) in
                try statement.bind(kind, at: 1)
                try statement.bind(id, at: 2)
            }
        case .appendEvent(let event):
            try append(event)
        case .appendPush(let push):
            try append(push)
        case .setMeta(let key, let value):
            try run(
                "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
            ) {
                statement throws(StoreError) in
                try statement.bind(key, at: 1)
                try statement.bind(value, at: 2)
            }
        case .deleteMeta(let key):
            try run("DELETE FROM meta WHERE key = ?1") { statement throws(StoreError) in try statement.bind(key, at: 1)
            }
        case .pruneEventsKeepingLast(let count):
            try pruneKeepingLast(count, table: "events", key: "seq")
        case .pruneEventsBefore(let time):
            try pruneBefore(time, table: "events", key: "seq", time: "at")
        case .prunePushesKeepingLast(let count):
            try pruneKeepingLast(count, table: "pushes", key: "id")
        case .prunePushesBefore(let time):
            try pruneBefore(time, table: "pushes", key: "id", time: "received_at")
        }
    }

    private func upsert(_ document: StoredDocument) throws(StoreError) {
        let sql = """
            INSERT INTO documents (kind, id, device_id, bundle_id, state, body) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            ON CONFLICT (kind, id) DO UPDATE SET device_id = excluded.device_id, bundle_id = excluded.bundle_id,
            state = excluded.state, body = excluded.body
            """
        try run(sql) { statement throws(StoreError) in
            try statement.bind(document.kind, at: 1)
            try statement.bind(document.id, at: 2)
            try statement.bind(document.deviceId, at: 3)
            try statement.bind(document.bundleId, at: 4)
            try statement.bind(document.state, at: 5)
            try statement.bind(document.body, at: 6)
        }
    }

    /// Inserts only when `seq` is past the log's end, so the log's order is its numbering.
    private func append(_ event: StoredEvent) throws(StoreError) {
        let sql = """
            INSERT INTO events (seq, type, at, device_id, bundle_id, activity_id, alarm_id, data)
            SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8 WHERE ?1 > coalesce((SELECT max(seq) FROM events), -9223372036854775808)
            """
        try run(sql) { statement throws(StoreError) in
            try statement.bind(event.seq, at: 1)
            try statement.bind(event.type, at: 2)
            try statement.bind(event.at, at: 3)
            try statement.bind(event.deviceId, at: 4)
            try statement.bind(event.bundleId, at: 5)
            try statement.bind(event.activityId, at: 6)
            try statement.bind(event.alarmId, at: 7)
            try statement.bind(event.data, at: 8)
        }
        guard changes == 1 else {
            throw StoreError.store("append event", "seq \(event.seq) is not past the end of the event log")
        }
    }

    private func append(_ push: PushLogEntry) throws(StoreError) {
        let sql = """
            INSERT INTO pushes (apns_id, unique_id, token, channel_id, bundle_id, received_at, record)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
            """
        try run(sql) { statement throws(StoreError) in
            try statement.bind(push.apnsId, at: 1)
            try statement.bind(push.uniqueId, at: 2)
            try statement.bind(push.token, at: 3)
            try statement.bind(push.channelId, at: 4)
            try statement.bind(push.bundleId, at: 5)
            try statement.bind(push.receivedAt, at: 6)
            try statement.bind(push.record, at: 7)
        }
    }

    /// Deletes a prefix of `table` (by `key` order) so that at most `count` rows remain.
    private func pruneKeepingLast(_ count: Int, table: String, key: String) throws(StoreError) {
        guard count > 0 else { return try execute("DELETE FROM \(table)") }
        let sql =
            "DELETE FROM \(table) WHERE \(key) < (SELECT \(key) FROM \(table) ORDER BY \(key) DESC LIMIT 1 OFFSET ?1)"
        try run(sql) { statement throws(StoreError) in try statement.bind(Int64(count - 1), at: 1) }
    }

    /// Deletes a prefix of `table` (by `key` order) up to the first row whose `time` is at or
    /// after `cutoff`. Deleting a prefix (rather than every old row) keeps the log contiguous:
    /// everything after the oldest kept row is still there, which stream resumption relies on.
    private func pruneBefore(_ cutoff: Double, table: String, key: String, time: String) throws(StoreError) {
        let sql = """
            DELETE FROM \(table) WHERE \(key) < coalesce(
                (SELECT \(key) FROM \(table) WHERE \(time) >= ?1 ORDER BY \(key) LIMIT 1),
                (SELECT max(\(key)) + 1 FROM \(table)))
            """
        try run(sql) { statement throws(StoreError) in try statement.bind(cutoff, at: 1) }
    }

    /// Binds with `bind` and runs `sql` to completion.
    private func run(_ sql: String, bind: (Statement) throws(StoreError) -> Void) throws(StoreError) {
        try withStatement(sql) { statement throws(StoreError) in
            try bind(statement)
            try statement.run()
        }
    }
}
