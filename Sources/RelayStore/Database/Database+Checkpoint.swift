import CSQLite

extension Database {
    /// What a checkpoint found in the write-ahead log and copied back, in frames (pages).
    package struct CheckpointProgress: Sendable, Equatable {
        /// Frames in the log.
        package var logFrames: Int
        /// Of those, the frames now copied into the database file.
        package var checkpointedFrames: Int

        /// Frames still only in the log.
        package var remainingFrames: Int { max(0, logFrames - checkpointedFrames) }
    }

    /// Copies into the database file every frame of the log that no reader still needs, without
    /// waiting for any lock (SQLite's PASSIVE checkpoint): writers and readers go on meanwhile.
    /// Nil when another connection's checkpoint is running.
    ///
    /// The log starts over only once everything in it was copied back: the next write
    /// transaction then writes from its beginning again.
    package func checkpointPassively() throws(StoreError) -> CheckpointProgress? {
        guard let handle else { throw Self.closedError("checkpoint") }
        var logFrames: Int32 = 0
        var checkpointed: Int32 = 0
        let rc = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &logFrames, &checkpointed)
        if rc == SQLITE_BUSY { return nil }
        guard rc == SQLITE_OK else { throw StoreError(sqlite: rc, connection: handle, operation: "checkpoint") }
        return CheckpointProgress(logFrames: Int(logFrames), checkpointedFrames: Int(checkpointed))
    }

    /// The connection's page size in bytes.
    package func pageSize() throws(StoreError) -> Int {
        try withStatement("PRAGMA page_size") { statement throws(StoreError) in
            try statement.step() ? Int(statement.int64(0)) : 4_096
        }
    }
}
