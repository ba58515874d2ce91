extension StoreReader {
    // MARK: - Events

    /// Up to `limit` events with `seq` greater than `seq` that match `filter`, oldest first.
    public func events(after seq: Int64, limit: Int, filter: StoredEventFilter = .all) throws(StoreError)
        -> [StoredEvent]
    {
        if let types = filter.types, types.count > StoredEventFilter.maxTypes {
            throw .store(
                "read events", "filter names \(types.count) types, at most \(StoredEventFilter.maxTypes) allowed")
        }
        let limit = Int(Self.clamp(limit))
        guard limit > 0, filter.types?.isEmpty != true else { return [] }
        return try readLogs { database, marks throws(StoreError) in
            let after = marks.eventsFrom == Int64.min ? seq : max(seq, marks.eventsFrom - 1)
            var events: [StoredEvent] = []
            let wanted = filter.bytes
            try database.forEachEventSection(after: after) { section throws(StoreError) in
                for raw in try LogBlock.rawEvents(section) where raw.seq > after && wanted.matches(raw, in: section) {
                    let event = raw.resolved(in: section)
                    events.append(
                        StoredEvent(
                            seq: event.seq, type: event.type, at: event.at, deviceId: event.deviceId,
                            bundleId: event.bundleId, activityId: event.activityId, alarmId: event.alarmId,
                            data: try LogBlock.data(stored: event.stored, in: section)))
                    if events.count == limit { return false }
                }
                return true
            }
            return events
        }
    }

    /// The smallest `seq` still in the log, or nil when it is empty.
    public func oldestEventSeq() throws(StoreError) -> Int64? {
        try readLogs { database, marks throws(StoreError) in
            // The mark is an event's seq or past the last: the first block at it starts there.
            let sql = "SELECT max(first_seq, ?1) FROM log_blocks WHERE last_seq >= ?1 ORDER BY last_seq LIMIT 1"
            return try database.optionalInteger(sql) { statement throws(StoreError) in
                try statement.bind(marks.eventsFrom, at: 1)
            }
        }
    }

    /// The largest `seq` in the log, or nil when it is empty.
    public func latestEventSeq() throws(StoreError) -> Int64? {
        try readLogs { database, marks throws(StoreError) in
            let sql = "SELECT last_seq FROM log_blocks WHERE last_seq >= ?1 ORDER BY last_seq DESC LIMIT 1"
            return try database.optionalInteger(sql) { statement throws(StoreError) in
                try statement.bind(marks.eventsFrom, at: 1)
            }
        }
    }

    // MARK: - Pushes

    /// Up to `limit` push log entries matching `filter`, newest first; `before` pages further
    /// back (only entries with an id below it). Each comes with its whole record, wherever it is kept.
    public func pushes(filter: PushFilter = .all, before: Int64? = nil, limit: Int) throws(StoreError) -> [StoredPush] {
        let limit = Int(Self.clamp(limit))
        guard limit > 0 else { return [] }
        return try readLogs { database, marks throws(StoreError) in
            var pushes: [StoredPush] = []
            // Records kept in an event: read after the search, each block's events once.
            var embedded: [(index: Int, request: EventSliceRequest)] = []
            let wanted = filter.bytes
            try database.forEachPushSection(from: marks.pushesFrom, before: before) { section throws(StoreError) in
                for raw in try LogBlock.rawPushes(section).reversed()
                where raw.id >= marks.pushesFrom && raw.id < (before ?? Int64.max) && wanted.matches(raw, in: section) {
                    let push = raw.resolved(in: section)
                    var record: [UInt8] = []
                    switch push.record {
                    case .inline(let range): record = Array(section[range])
                    case .embedded(let location):
                        embedded.append(
                            (
                                pushes.count,
                                EventSliceRequest(seq: location.seq, offset: location.offset, length: location.length)
                            ))
                    }
                    let entry = PushLogEntry(
                        apnsId: push.apnsId, uniqueId: push.uniqueId, token: push.token, channelId: push.channelId,
                        bundleId: push.bundleId, receivedAt: push.receivedAt, record: record)
                    pushes.append(StoredPush(id: push.id, push: entry))
                    if pushes.count == limit { return false }
                }
                return true
            }
            let records = try database.eventSlices(embedded.map(\.request))
            for (item, record) in zip(embedded, records) { pushes[item.index].push.record = record }
            return pushes
        }
    }

    /// How many entries the push log holds.
    public func pushCount() throws(StoreError) -> Int {
        try readLogs { database, marks throws(StoreError) in
            let sql = "SELECT coalesce(sum(push_count), 0) FROM log_blocks WHERE last_push_id >= ?1"
            let all = try database.optionalInteger(sql) { statement throws(StoreError) in
                try statement.bind(marks.pushesFrom, at: 1)
            }
            // Less the entries below the mark in the block it falls in.
            var hidden = 0
            try database.forEachPushSection(from: marks.pushesFrom, before: marks.pushesFrom) {
                section throws(StoreError) in
                hidden += try LogBlock.rawPushes(section).count { $0.id < marks.pushesFrom }
                return true
            }
            return Int(all ?? 0) - hidden
        }
    }

    /// Runs `body` in one read transaction with the logs' marks, so marks and blocks are of one commit.
    private func readLogs<T>(_ body: (Database, LogMarks) throws(StoreError) -> T) throws(StoreError) -> T {
        try read { database throws(StoreError) in
            try database.transaction(.deferred) { () throws(StoreError) -> T in
                try body(database, try database.logMarks())
            }
        }
    }
}

extension StoredEventFilter {
    /// The filter's strings as UTF-8, to compare with events where their section holds them.
    struct Bytes {
        var deviceId: [UInt8]?
        var bundleId: [UInt8]?
        var activityId: [UInt8]?
        var alarmId: [UInt8]?
        var types: [[UInt8]]?

        /// Whether `event` (read from `section`) passes every condition set.
        func matches(_ event: LogBlock.RawEvent, in section: [UInt8]) -> Bool {
            guard section.holds(deviceId, at: event.deviceId), section.holds(bundleId, at: event.bundleId),
                section.holds(activityId, at: event.activityId), section.holds(alarmId, at: event.alarmId)
            else { return false }
            guard let types else { return true }
            return types.contains { section[event.type].elementsEqual($0) }
        }
    }

    var bytes: Bytes {
        Bytes(
            deviceId: deviceId.map { Array($0.utf8) }, bundleId: bundleId.map { Array($0.utf8) },
            activityId: activityId.map { Array($0.utf8) }, alarmId: alarmId.map { Array($0.utf8) },
            types: types.map { $0.map { Array($0.utf8) } })
    }
}

extension PushFilter {
    /// The filter's strings as UTF-8, to compare with entries where their section holds them.
    struct Bytes {
        var token: [UInt8]?
        var apnsId: [UInt8]?
        var uniqueId: [UInt8]?
        var channelId: [UInt8]?
        var bundleId: [UInt8]?

        /// Whether `push` (read from `section`) passes every condition set.
        func matches(_ push: LogBlock.RawPush, in section: [UInt8]) -> Bool {
            section.holds(token, at: push.token) && section.holds(apnsId, at: push.apnsId)
                && section.holds(uniqueId, at: push.uniqueId)
                && section.holds(channelId, at: push.channelId) && section.holds(bundleId, at: push.bundleId)
        }
    }

    var bytes: Bytes {
        Bytes(
            token: token.map { Array($0.utf8) }, apnsId: apnsId.map { Array($0.utf8) },
            uniqueId: uniqueId.map { Array($0.utf8) }, channelId: channelId.map { Array($0.utf8) },
            bundleId: bundleId.map { Array($0.utf8) })
    }
}

extension [UInt8] {
    /// Whether the bytes at `range` are `wanted` exactly; true when nothing is wanted, false when
    /// something is and `range` is nil (the field is absent). For filters compared in place.
    fileprivate func holds(_ wanted: [UInt8]?, at range: Range<Int>?) -> Bool {
        guard let wanted else { return true }
        guard let range else { return false }
        return self[range].elementsEqual(wanted)
    }
}
