package import RelayCore

/// A list of writes that commit together or not at all.
///
/// Build one per request (or per state change) and hand it to `StoreWriter.submit`; the writer
/// applies many batches in one transaction but each batch stays atomic on its own.
package struct StoreBatch: Sendable, Equatable {
    /// One write.
    package enum Write: Sendable, Equatable {
        /// Inserts the document or replaces the one with the same kind and id.
        case upsertDocument(StoredDocument)
        /// Deletes the document of this kind and id, if there is one.
        case deleteDocument(kind: String, id: String)
        /// Appends an event; its `seq` must be larger than every `seq` in the log.
        case appendEvent(StoredEvent)
        /// Appends a push log entry; the store numbers it.
        case appendPush(PushLogEntry)
        /// Sets a named value.
        case setMeta(key: String, value: [UInt8])
        /// Deletes a named value, if there is one.
        case deleteMeta(key: String)
        /// Deletes the oldest events so that at most `count` remain.
        case pruneEventsKeepingLast(Int)
        /// Deletes the oldest events, up to the first one at or after `time`.
        case pruneEventsBefore(UnixSeconds)
        /// Deletes the oldest push log entries so that at most `count` remain.
        case prunePushesKeepingLast(Int)
        /// Deletes the oldest push log entries, up to the first one received at or after `time`.
        case prunePushesBefore(UnixSeconds)
    }

    /// The writes, applied in order.
    package var writes: [Write]

    /// A batch of `writes` (empty by default).
    package init(_ writes: [Write] = []) { self.writes = writes }

    /// True when the batch writes nothing.
    package var isEmpty: Bool { writes.isEmpty }

    /// Adds an insert-or-replace of `document`.
    package mutating func upsert(_ document: StoredDocument) { writes.append(.upsertDocument(document)) }

    /// Adds a delete of the document `kind`/`id`.
    package mutating func deleteDocument(kind: String, id: String) {
        writes.append(.deleteDocument(kind: kind, id: id))
    }

    /// Adds an event to append.
    package mutating func append(_ event: StoredEvent) { writes.append(.appendEvent(event)) }

    /// Adds a push log entry to append.
    package mutating func append(_ push: PushLogEntry) { writes.append(.appendPush(push)) }

    /// Adds setting `key` to `value`.
    package mutating func setMeta(_ key: String, _ value: [UInt8]) { writes.append(.setMeta(key: key, value: value)) }

    /// Adds deleting `key`.
    package mutating func deleteMeta(_ key: String) { writes.append(.deleteMeta(key: key)) }

    /// Adds deleting the oldest events so that at most `count` remain.
    package mutating func pruneEvents(keepingLast count: Int) { writes.append(.pruneEventsKeepingLast(count)) }

    /// Adds deleting the oldest events, up to the first one at or after `time`.
    package mutating func pruneEvents(before time: UnixSeconds) { writes.append(.pruneEventsBefore(time)) }

    /// Adds deleting the oldest push log entries so that at most `count` remain.
    package mutating func prunePushes(keepingLast count: Int) { writes.append(.prunePushesKeepingLast(count)) }

    /// Adds deleting the oldest push log entries, up to the first one received at or after `time`.
    package mutating func prunePushes(before time: UnixSeconds) { writes.append(.prunePushesBefore(time)) }
}
