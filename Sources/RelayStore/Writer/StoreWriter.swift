import Foundation

/// Makes the relay's state durable with group commit, on a thread of its own.
///
/// Callers `submit` batches from any thread. The writer thread takes everything queued (up to
/// `maxBatchesPerCommit`), applies it in ONE transaction — each batch in its own savepoint, so a
/// batch that fails is undone alone — commits (with `synchronous=FULL`, one fsync), and only then
/// calls each batch's completion, in submission order. Acknowledgement therefore follows
/// durability, and many requests share one fsync.
///
/// Completions run on the writer thread: they must be quick and must not wait on the writer.
/// The thread keeps the writer alive until `close()`, which every owner must call.
public final class StoreWriter: @unchecked Sendable {  // mutable state is guarded by `condition`
    /// What the writer has done so far.
    public struct Statistics: Sendable, Equatable {
        /// Transactions committed.
        public var commits: Int
        /// Batches committed (successfully or not).
        public var batches: Int
    }

    /// A batch waiting in the queue, with its ticket (its position in submission order).
    private struct Pending {
        var ticket: UInt64
        var batch: StoreBatch
        var completion: @Sendable (Result<Void, StoreError>) -> Void
    }

    /// The most batches one transaction takes, so a flood cannot make one commit unbounded.
    public let maxBatchesPerCommit: Int
    private let database: Database  // touched only by the writer thread once it has started
    private let applier: BatchApplier  // likewise
    private let condition = NSCondition()
    private var queue: [Pending] = []
    private var submitted: UInt64 = 0
    private var completed: UInt64 = 0
    private var closing = false
    private var finished = false
    private var statistics = Statistics(commits: 0, batches: 0)
    private var groupObserver: (@Sendable () -> Void)?
    private var thread: Thread?

    /// Takes ownership of `database` (already migrated) and starts the writer thread.
    public init(database: Database, maxBatchesPerCommit: Int = 1_024) {
        self.database = database
        applier = BatchApplier(database: database)
        self.maxBatchesPerCommit = max(1, maxBatchesPerCommit)
        let thread = Thread { [self] in run() }
        thread.name = "relay-store-writer"
        self.thread = thread
        thread.start()
    }

    /// Opens the database at `path`, applies the relay's migrations and starts the writer.
    public convenience init(path: String, options: DatabaseOptions = DatabaseOptions()) throws(StoreError) {
        let database = try Database(path: path, options: options)
        try database.migrate(StoreSchema.migrations)
        self.init(database: database)
    }

    // MARK: - Submitting

    /// Queues `batch`; `completion` runs on the writer thread once the batch is committed (or
    /// has failed). After `close()` the completion runs at once, on the caller's thread, with an error.
    public func submit(_ batch: StoreBatch, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
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
    /// from a completion (the writer thread would wait on itself), which it refuses.
    public func submitAndWait(_ batch: StoreBatch) throws(StoreError) {
        guard Thread.current !== thread else {
            throw .store("submit", "submitAndWait called on the writer thread")
        }
        let outcome = Outcome()
        submit(batch) { result in outcome.set(result) }
        try outcome.wait().get()
    }

    /// Sets what runs after each commit group's completions (on the writer thread, before `flush`
    /// returns for them), and after a completion refused at once because the writer is closed:
    /// lets completions queue their follow-ups and hand them on together.
    public func setGroupObserver(_ observer: @escaping @Sendable () -> Void) {
        condition.lock()
        groupObserver = observer
        condition.unlock()
    }

    /// Blocks until every batch submitted before the call is committed (or has failed).
    public func flush() {
        guard Thread.current !== thread else { return }
        condition.lock()
        let target = submitted
        while completed < target && !finished { condition.wait() }
        condition.unlock()
    }

    /// Commits everything queued, stops the thread and closes the connection. Later submits fail.
    public func close() {
        condition.lock()
        closing = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }

    /// Commits and batches so far, for measuring how well commits are shared.
    public var currentStatistics: Statistics {
        condition.lock()
        defer { condition.unlock() }
        return statistics
    }

    // MARK: - The writer thread

    private func run() {
        while let (group, observer) = nextGroup() {
            let results = commit(group)
            for (pending, result) in zip(group, results) { pending.completion(result) }
            observer?()
            condition.lock()
            completed = group[group.count - 1].ticket
            statistics.batches += group.count
            condition.broadcast()
            condition.unlock()
        }
        applier.close()
        database.close()
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for work and takes up to `maxBatchesPerCommit` batches, with the group observer;
    /// nil once closing and drained.
    private func nextGroup() -> ([Pending], (@Sendable () -> Void)?)? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !closing { condition.wait() }
        if queue.isEmpty { return nil }
        let count = min(queue.count, maxBatchesPerCommit)
        let group: [Pending]
        if count == queue.count {
            group = queue
            queue = []
            queue.reserveCapacity(group.count)
        } else {
            group = Array(queue.prefix(count))
            queue.removeFirst(count)
        }
        return (group, groupObserver)
    }

    /// Applies `group` in one transaction and returns each batch's result.
    ///
    /// Batches almost never fail, so the group is first applied without savepoints (a savepoint per
    /// batch costs a statement journal); only if one fails is the transaction rolled back and the
    /// group applied again with each batch in its own savepoint, so the failure stays its own. A
    /// group of one batch needs no second try: its transaction is its savepoint.
    private func commit(_ group: [Pending]) -> [Result<Void, StoreError>] {
        switch commitOptimistically(group) {
        case .success:
            return Array(repeating: .success(()), count: group.count)
        case .failure(let error) where group.count == 1:
            return [.failure(error)]
        case .failure:
            return commitIsolated(group)
        }
    }

    /// Applies every batch in one plain transaction; rolled back when any write fails.
    private func commitOptimistically(_ group: [Pending]) -> Result<Void, StoreError> {
        do throws(StoreError) {
            try database.execute("BEGIN IMMEDIATE")
            for pending in group { try applier.apply(pending.batch) }
            try database.execute("COMMIT")
            condition.lock()
            statistics.commits += 1
            condition.unlock()
            return .success(())
        } catch {
            database.rollback()
            applier.transactionUndone()
            return .failure(error)
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
            try database.execute("COMMIT")
            condition.lock()
            statistics.commits += 1
            condition.unlock()
            return results
        } catch {
            database.rollback()
            applier.transactionUndone()
            return Array(repeating: .failure(error), count: group.count)
        }
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
