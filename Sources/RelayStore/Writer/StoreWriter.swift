import CRelayLinux
import Foundation
import RelayCore

/// Makes the relay's state durable with group commit, on threads of its own.
///
/// Callers `submit` batches from any thread. The writer thread applies whatever is queued in
/// ONE transaction (up to `maxBatchesPerCommit` batches; should a batch fail, the transaction is
/// rolled back and each batch applied again in its own savepoint, so that it is undone alone) and
/// commits it once the sync thread is idle: batches that arrive while the sync thread works join
/// the open transaction rather than a commit of their own. The sync thread then makes the commit
/// durable (one `fdatasync` of the write-ahead log for every commit since its last one) and only
/// then calls each batch's completion, in submission order. Acknowledgement therefore follows
/// durability, and many requests share one commit and one sync, while the writer already applies
/// the next batches: the disk's wait is no longer part of the writer's turn.
///
/// With `StoreDurability.syncEachCommit` (the default) durability is that of SQLite's
/// `synchronous = FULL` (a commit survives power loss) when the database was opened with `.full`:
/// its connection commits with `NORMAL`, which writes the log without syncing it, and the sync
/// thread syncs it before acknowledging. With `.syncPeriodically` there is no sync thread: the
/// writer acknowledges each group itself as soon as its commit is written to the log (which
/// survives a crash of the process), and a `PeriodicLogSync` thread syncs the log every so often.
/// With `.normal` nothing is synced at all, and the writer acknowledges too. Readers may see a
/// commit a moment before it is acknowledged.
///
/// The log is copied back into the database file by a `Checkpointer` on a connection of its own,
/// not inside the COMMIT that makes it long (SQLite's automatic checkpoint), so no commit waits
/// for a checkpoint either.
///
/// Completions run on the sync thread, or on the writer's when nothing is synced before
/// acknowledging: they must be quick and must not wait on the writer.
/// The threads keep the writer alive until `close()`, which every owner must call.
package final class StoreWriter: @unchecked Sendable {  // mutable state is guarded by `condition`
    /// What the writer has done so far.
    package struct Statistics: Sendable, Equatable {
        /// Transactions committed.
        package var commits: Int
        /// Batches committed (successfully or not).
        package var batches: Int
        /// `fdatasync` calls that made commits durable.
        package var syncs: Int = 0
        /// Checkpoint passes, by the checkpointer or by the writer between its commits.
        package var checkpoints: Int = 0
        /// Periodic syncs that failed (`.syncPeriodically`; with `.syncEachCommit` a failed sync
        /// fails the batches it would have acknowledged instead).
        package var syncFailures: Int = 0
    }

    /// A batch waiting in the queue, with its ticket (its position in submission order).
    private struct Pending {
        var ticket: UInt64
        var batch: StoreBatch
        var completion: @Sendable (Result<Void, StoreError>) -> Void
    }

    /// A group the writer has committed (or failed), on its way to the sync thread.
    private struct Settled {
        var group: [Pending]
        var results: [Result<Void, StoreError>]
    }

    /// The most batches one transaction takes, so a flood cannot make one commit unbounded.
    package let maxBatchesPerCommit: Int
    /// The log's length, in frames, from which the writer asks the checkpointer to copy it back.
    package let checkpointFrames: Int
    /// The schema migration applied when this writer opened the file, if any was needed.
    package let migration: SchemaMigration?
    private let database: Database  // touched only by the writer thread once it has started
    private let applier: BatchApplier  // likewise
    private let checkpointer: Checkpointer?  // nil when its connection could not be opened
    /// When acknowledged commits reach the disk (see `StoreDurability`).
    package let durability: StoreDurability
    /// Syncs the log before acknowledgements; nil when the database was opened with `.normal`
    /// or the log is synced periodically instead.
    private let logSync: LogSync?
    /// Syncs the log every so often, off the acknowledgements' path (`.syncPeriodically`).
    private let periodicSync: PeriodicLogSync?
    private let condition = NSCondition()
    private var queue: [Pending] = []
    private var submitted: UInt64 = 0
    private var completed: UInt64 = 0
    private var closing = false
    private var finished = false
    private var statistics = Statistics(commits: 0, batches: 0)
    private var groupObserver: (@Sendable () -> Void)?
    private var thread: Thread?
    private var syncThread: Thread?
    /// Committed groups for the sync thread, and whether the writer has stopped adding to them.
    private let syncCondition = NSCondition()
    private var settled: [Settled] = []
    private var writerStopped = false
    private var syncStopped = false
    /// Whether the sync thread has finished its last round (guarded by `condition`): the writer
    /// commits its open transaction then, and until then lets batches join it.
    private var syncIdle = true

    /// Takes ownership of `database` (already migrated) and starts the writer's threads.
    ///
    /// `checkpointMegabytes` is how long the log grows before the checkpointer copies it back.
    /// `documentFlushInterval` and `documentFlushEvents` say how often documents carried by events
    /// are written to their rows (see `BatchApplier`).
    package init(
        database: Database, maxBatchesPerCommit: Int = 1_024, checkpointMegabytes: Int = 32,
        documentFlushInterval: Duration = .seconds(1), documentFlushEvents: Int = 16_384,
        durability: StoreDurability = .syncEachCommit, migration: SchemaMigration? = nil
    ) {
        self.database = database
        self.migration = migration
        self.durability = durability
        applier = BatchApplier(
            database: database, documentFlushInterval: documentFlushInterval, documentFlushEvents: documentFlushEvents)
        self.maxBatchesPerCommit = max(1, maxBatchesPerCommit)
        let pageSize = (try? database.pageSize()) ?? 4_096
        checkpointFrames = max(16, (checkpointMegabytes << 20) / max(512, pageSize))
        // The writer's commits only write the log; the sync thread syncs it through `logSync`
        // before acknowledging, or `periodicSync` does every so often.
        let syncs = database.options.synchronous == .full
        if syncs { try? database.execute("PRAGMA synchronous = NORMAL") }
        switch durability {
        case .syncEachCommit:
            logSync = syncs ? LogSync(databasePath: database.path) : nil
            periodicSync = nil
        case .syncPeriodically(let interval):
            logSync = nil
            periodicSync = syncs ? PeriodicLogSync(log: LogSync(databasePath: database.path), interval: interval) : nil
        }
        // Should the second connection fail to open, SQLite's automatic checkpoints stay on.
        checkpointer = try? Checkpointer(path: database.path, catchUpFrames: checkpointFrames / 16)
        if checkpointer != nil { database.countWALFrames() }
        let thread = Thread { [self] in run() }
        self.thread = thread
        // A thread to sync and acknowledge only when each commit is synced before its answers;
        // otherwise the writer acknowledges a group itself, without waking another thread.
        if logSync != nil {
            let syncThread = Thread { [self] in runSync() }
            self.syncThread = syncThread
            syncThread.start()
        }
        thread.start()
    }

    /// Opens the database at `path`, applies the relay's migrations and starts the writer.
    package convenience init(
        path: String, options: DatabaseOptions = DatabaseOptions(), durability: StoreDurability = .syncEachCommit
    ) throws(StoreError) {
        let database = try Database(path: path, options: options)
        let before = try database.userVersion()
        let began = ContinuousClock.now
        let after = try database.migrate(StoreSchema.migrations)
        let took = ContinuousClock.now - began
        let migration = after == before ? nil : SchemaMigration(from: before, to: after, seconds: took.inSeconds)
        self.init(database: database, durability: durability, migration: migration)
    }

    // MARK: - Submitting

    /// Queues `batch`; `completion` runs on the sync thread (the writer's when there is none) once
    /// the batch is committed and, with `.syncEachCommit`, synced (or has failed). After `close()`
    /// the completion runs at once, on the caller's thread, with an error.
    package func submit(_ batch: StoreBatch, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        condition.lock()
        guard !closing else {
            let observer = groupObserver
            condition.unlock()
            completion(.failure(.store("submit", "the store writer is closed")))
            observer?()
            return
        }
        submitted += 1
        queue.append(Pending(ticket: submitted, batch: batch, completion: completion))
        condition.broadcast()
        condition.unlock()
    }

    /// Submits `batch` and blocks until it is committed; for startup and tests. Must not be called
    /// from a completion (the sync thread would wait on itself), which it refuses.
    package func submitAndWait(_ batch: StoreBatch) throws(StoreError) {
        guard !isOwnThread else {
            throw .store("submit", "submitAndWait called on the writer's own thread")
        }
        let outcome = Outcome()
        submit(batch) { result in outcome.set(result) }
        try outcome.wait().get()
    }

    /// Sets what runs after each round of completions (on the sync thread, before `flush`
    /// returns for them), and after a completion refused at once because the writer is closed:
    /// lets completions queue their follow-ups and hand them on together.
    package func setGroupObserver(_ observer: @escaping @Sendable () -> Void) {
        condition.lock()
        groupObserver = observer
        condition.unlock()
    }

    /// Blocks until every batch submitted before the call is committed (or has failed).
    package func flush() {
        guard !isOwnThread else { return }
        condition.lock()
        let target = submitted
        while completed < target && !finished { condition.wait() }
        condition.unlock()
    }

    /// Commits everything queued, stops the thread and closes the connection. Later submits fail.
    package func close() {
        condition.lock()
        closing = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }

    /// Commits, batches, syncs and checkpoints so far, for measuring how well commits are shared.
    package var currentStatistics: Statistics {
        condition.lock()
        var current = statistics
        condition.unlock()
        current.checkpoints += checkpointer?.passes ?? 0
        if let periodicSync {
            let periodic = periodicSync.statistics
            current.syncs += periodic.syncs
            current.syncFailures += periodic.failures
        }
        return current
    }

    /// True on the writer's or the sync thread, which must never wait for the writer.
    private var isOwnThread: Bool { Thread.current === thread || Thread.current === syncThread }

    // MARK: - The writer thread

    private func run() {
        relay_set_thread_name("store-writer")  // for top -H, /proc and debuggers
        // Batches applied in the open transaction and not yet committed.
        var open: [Pending] = []
        while let next = nextGroup(holdingOpen: open.count) {
            if !next.group.isEmpty {
                if open.isEmpty, checkpointer?.takeCaughtUp() == true { checkpointHere() }
                let failure = applyOptimistically(next.group, opening: open.isEmpty)
                open += next.group
                if let failure {
                    // Rolled back. A transaction of one batch was that batch's own; otherwise each
                    // batch is applied again in its own savepoint, so the failure stays its own.
                    settle(open, open.count == 1 ? [.failure(failure)] : commitIsolated(open))
                    open = []
                    continue
                }
            }
            if next.commitNow || open.count >= maxBatchesPerCommit {
                settle(open, commitOpen(open))
                open = []
            }
        }
        // Everything is committed: a last flush leaves no document to the log (a clean stop's
        // file reads at once), then the sync thread acknowledges, then the connection closes.
        flushDocumentsBeforeClosing()
        if syncThread != nil {
            syncCondition.lock()
            writerStopped = true
            syncCondition.signal()
            while !syncStopped { syncCondition.wait() }
            syncCondition.unlock()
        }
        periodicSync?.stop()  // after a last sync of what was committed
        checkpointer?.close()
        applier.close()
        database.close()
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Hands a committed (or failed) group to the sync thread, or acknowledges it at once when
    /// there is none, after asking the checkpointer to copy the log back when it has grown long.
    private func settle(_ group: [Pending], _ results: [Result<Void, StoreError>]) {
        if let frames = database.walFrames, frames >= checkpointFrames {
            // Far behind (a reader held the log, or the checkpointer cannot keep up): the
            // writer copies it back itself, which also slows the writer down.
            if frames >= checkpointFrames * 4 { checkpointHere() } else { checkpointer?.request() }
        }
        guard syncThread != nil else {
            acknowledge([Settled(group: group, results: results)])
            return
        }
        condition.lock()
        syncIdle = false
        condition.unlock()
        syncCondition.lock()
        settled.append(Settled(group: group, results: results))
        syncCondition.signal()
        syncCondition.unlock()
    }

    /// Writes every document the log carries to its row, in a transaction of its own; on failure
    /// the log still carries them, and the next start's reads and flushes find them there.
    private func flushDocumentsBeforeClosing() {
        do throws(StoreError) {
            try database.transaction { () throws(StoreError) in try applier.flushDocuments() }
            applier.transactionCommitted()
        } catch {
            applier.transactionUndone()
        }
    }

    /// Copies what is left of the log back into the database file on the writer's connection,
    /// between two commits; the next commit then starts the log over.
    private func checkpointHere() {
        guard (try? database.checkpointPassively()) != nil else { return }
        condition.lock()
        statistics.checkpoints += 1
        condition.unlock()
    }

    /// Sets what runs, on the periodic sync's thread, when a periodic sync fails: those commits
    /// were acknowledged already, so the failure can only be reported (`.syncPeriodically`).
    package func setSyncFailureObserver(_ observer: @escaping @Sendable (StoreError) -> Void) {
        periodicSync?.setFailureObserver(observer)
    }

    /// The sync thread: acknowledges, with one sync, every group committed since its last round.
    private func runSync() {
        relay_set_thread_name("store-sync")  // for top -H, /proc and debuggers
        while let groups = nextSettled() { acknowledge(groups) }
        syncCondition.lock()
        syncStopped = true
        syncCondition.broadcast()
        syncCondition.unlock()
    }

    /// Syncs the log when each commit must be synced before its answers and `groups` hold a
    /// commit, then runs their completions in order and the group observer once.
    private func acknowledge(_ groups: [Settled]) {
        var synced: Result<Void, StoreError> = .success(())
        let mustSync = logSync != nil && groups.contains { $0.results.contains { (try? $0.get()) != nil } }
        if mustSync, let logSync { synced = logSync.sync() }
        var batches = 0
        for settled in groups {
            for (pending, result) in zip(settled.group, settled.results) {
                pending.completion(result.flatMap { synced })
            }
            batches += settled.group.count
        }
        condition.lock()
        let observer = groupObserver
        condition.unlock()
        observer?()
        condition.lock()
        completed = groups.last?.group.last?.ticket ?? completed
        statistics.batches += batches
        if mustSync { statistics.syncs += 1 }
        syncIdle = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for committed groups and takes them all; nil once the writer has stopped and
    /// everything is taken.
    private func nextSettled() -> [Settled]? {
        syncCondition.lock()
        defer { syncCondition.unlock() }
        while settled.isEmpty && !writerStopped { syncCondition.wait() }
        if settled.isEmpty { return nil }
        let groups = settled
        settled = []
        settled.reserveCapacity(groups.count)
        return groups
    }

    /// What the writer does next: apply `group` (taken from the queue), then commit the open
    /// transaction when `commitNow` says so.
    private struct NextStep {
        var group: [Pending]
        var commitNow: Bool
    }

    /// Waits for work and takes what is queued, up to `maxBatchesPerCommit` batches with the
    /// `holdingOpen` already applied in the open transaction; nil once closing and drained.
    ///
    /// The open transaction is committed once the sync thread is idle (or when closing): while it
    /// syncs, the batches that arrive join one transaction instead of a commit each, which the
    /// next sync would cover all the same. Fewer, larger commits write fewer log frames per batch:
    /// the pages every commit rewrites (the tables' last pages and their parents) are written once
    /// per sync rather than once per group.
    private func nextGroup(holdingOpen: Int) -> NextStep? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !closing && !(holdingOpen > 0 && syncIdle) { condition.wait() }
        if queue.isEmpty {
            return holdingOpen > 0 ? NextStep(group: [], commitNow: true) : nil
        }
        let count = min(queue.count, max(1, maxBatchesPerCommit - holdingOpen))
        let group: [Pending]
        if count == queue.count {
            group = queue
            queue = []
            queue.reserveCapacity(group.count)
        } else {
            group = Array(queue.prefix(count))
            queue.removeFirst(count)
        }
        return NextStep(group: group, commitNow: syncIdle || closing)
    }

    /// Applies `group` in the open transaction (beginning one when `opening`); batches almost
    /// never fail, so without a savepoint each (a savepoint per batch costs a statement journal).
    /// On a failure the whole transaction is rolled back and the error returned: the caller
    /// applies what it held again, each batch in its own savepoint (`commitIsolated`).
    private func applyOptimistically(_ group: [Pending], opening: Bool) -> StoreError? {
        do throws(StoreError) {
            if opening { try database.execute("BEGIN IMMEDIATE") }
            for pending in group { try applier.apply(pending.batch) }
            return nil
        } catch {
            database.rollback()
            applier.transactionUndone()
            return error
        }
    }

    /// Commits the open transaction holding `group` and returns each batch's result. A COMMIT that
    /// fails rolls back; a group of one then has its error, and a larger group is applied again
    /// batch by batch, so that only what cannot be written fails.
    private func commitOpen(_ group: [Pending]) -> [Result<Void, StoreError>] {
        do throws(StoreError) {
            try applier.flushDocumentsIfDue()
            try commitTransaction()
            return Array(repeating: .success(()), count: group.count)
        } catch {
            database.rollback()
            applier.transactionUndone()
            return group.count == 1 ? [.failure(error)] : commitIsolated(group)
        }
    }

    /// Applies each batch of `group` in its own savepoint inside one transaction.
    private func commitIsolated(_ group: [Pending]) -> [Result<Void, StoreError>] {
        var results: [Result<Void, StoreError>] = []
        results.reserveCapacity(group.count)
        do throws(StoreError) {
            try database.execute("BEGIN IMMEDIATE")
            for pending in group {
                do {
                    try database.savepoint("batch") { () throws(StoreError) in try applier.apply(pending.batch) }
                    results.append(.success(()))
                } catch {
                    // Disk-full and I/O errors make SQLite abandon the whole transaction.
                    if database.isAutocommit { throw error }
                    results.append(.failure(error))
                }
            }
            // A flush that fails here is left to the next group; the batches still commit.
            do {
                try database.savepoint("flush") { () throws(StoreError) in try applier.flushDocumentsIfDue() }
            } catch {
                if database.isAutocommit { throw error }
                applier.flushUndone()
            }
            try commitTransaction()
            return results
        } catch {
            database.rollback()
            applier.transactionUndone()
            return Array(repeating: .failure(error), count: group.count)
        }
    }

    /// Writes the transaction's log block, commits, tells the applier, and counts the commit.
    private func commitTransaction() throws(StoreError) {
        try applier.writeBlock()
        try database.execute("COMMIT")
        applier.transactionCommitted()
        periodicSync?.committed()
        condition.lock()
        statistics.commits += 1
        condition.unlock()
    }
}

/// A result handed from the writer thread to a thread waiting in `submitAndWait`.
private final class Outcome: @unchecked Sendable {  // guarded by `condition`
    private let condition = NSCondition()
    private var result: Result<Void, StoreError>?

    func set(_ value: Result<Void, StoreError>) {
        condition.lock()
        result = value
        condition.broadcast()
        condition.unlock()
    }

    func wait() -> Result<Void, StoreError> {
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        return result ?? .failure(.store("submit", "no result"))
    }
}

/// A schema migration a writer applied when it opened its file: from the version the file had (0
/// for a new file) to the relay's, and how long it took.
package struct SchemaMigration: Sendable, Equatable {
    package var from: Int32
    package var to: Int32
    package var seconds: Double
}
