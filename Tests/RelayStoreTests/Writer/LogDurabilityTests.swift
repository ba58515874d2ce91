import Foundation
import RelayStore
import XCTest

/// The write-ahead log behind the writer: synced before every acknowledgement, copied back into
/// the database file off the writer's thread, and started over while commits keep coming.
final class LogDurabilityTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("relay.db") }

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    func testLogIsCopiedBackAndStartsOverWhileCommitsKeepComing() throws {
        let database = try Database(path: path)
        try database.migrate(StoreSchema.migrations)
        let writer = StoreWriter(database: database, checkpointMegabytes: 1)
        let results = Results()
        let payload = String(repeating: "x", count: 2_000)
        let count = 6_000  // about 12 MB of events: twelve times the checkpoint threshold
        let inFlight = DispatchSemaphore(value: 64)  // as a server's connections would keep it
        for seq in 1...count {
            inFlight.wait()
            let event = StoredEvent(
                seq: Int64(seq), type: "activity.updated", at: 1_000, deviceId: "d1", bundleId: "app.one",
                activityId: "a1", alarmId: nil, data: Sample.bytes(#"{"seq":\#(seq),"pad":"\#(payload)"}"#))
            writer.submit(StoreBatch([.appendEvent(event)])) { result in
                results.add("\(seq)", result)
                inFlight.signal()
            }
        }
        writer.flush()
        XCTAssertEqual(results.failures, [])
        XCTAssertEqual(results.names, (1...count).map(String.init), "acknowledged in submission order")
        let statistics = writer.currentStatistics
        print("log durability: \(statistics)")
        XCTAssertGreaterThan(statistics.checkpoints, 0)
        XCTAssertGreaterThan(statistics.syncs, 0)
        XCTAssertLessThanOrEqual(statistics.syncs, statistics.commits, "a sync covers at least one commit")
        let logSize = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int)
        XCTAssertLessThan(logSize, 8 << 20, "the log started over instead of holding all 12 MB")
        writer.close()

        let store = try Store(path: path)
        defer { store.close() }
        let stored = try store.reader.events(after: 0, limit: StoreReader.maxLimit)
        XCTAssertEqual(stored.count, count)
        XCTAssertEqual(stored.last?.seq, Int64(count))
    }

    func testAReaderHoldingAnOldSnapshotDelaysTheCopyButNoCommit() throws {
        let database = try Database(path: path)
        try database.migrate(StoreSchema.migrations)
        let writer = StoreWriter(database: database, checkpointMegabytes: 1)
        defer { writer.close() }
        try writer.submitAndWait(StoreBatch([.appendEvent(Sample.event(1))]))
        // A read transaction pins the log as it was: no checkpoint may copy past its snapshot.
        let reader = try Database(path: path, options: .reader)
        defer { reader.close() }
        try reader.execute("BEGIN")
        XCTAssertEqual(try count(in: reader), 1)
        let padding = String(repeating: "y", count: 4_000)
        func write(_ range: ClosedRange<Int>) throws {
            for seq in range {
                let event = StoredEvent(
                    seq: Int64(seq), type: "activity.updated", at: 1_000, deviceId: nil, bundleId: nil,
                    activityId: nil, alarmId: nil, data: Sample.bytes(#"{"pad":"\#(padding)"}"#))
                try writer.submitAndWait(StoreBatch([.appendEvent(event)]))
            }
        }
        try write(2...1_500)  // about 6 MB: past the writer's own limit (4 MB) while pinned
        XCTAssertEqual(try count(in: reader), 1)
        try reader.execute("COMMIT")
        try write(1_501...3_000)
        XCTAssertGreaterThan(writer.currentStatistics.checkpoints, 0)
        XCTAssertEqual(try count(in: reader), 3_000)
    }

    private func count(in reader: Database) throws -> Int64 {
        try reader.withStatement("SELECT coalesce(sum(event_count), 0) FROM log_blocks") {
            statement throws(StoreError) in
            try statement.step() ? statement.int64(0) : -1
        }
    }

    func testNothingIsAcknowledgedWhenTheLogCannotBeSynced() throws {
        let store = try Store(path: path)
        defer { store.close() }
        try store.writer.submitAndWait(StoreBatch([.appendEvent(Sample.event(1))]))
        // The log's file is gone from the directory (SQLite still writes the open one), so the
        // sync thread cannot make the next commit durable and must not say it did.
        try FileManager.default.removeItem(atPath: path + "-wal")
        XCTAssertThrowsError(try store.writer.submitAndWait(StoreBatch([.appendEvent(Sample.event(2))]))) { error in
            let message = (error as? StoreError)?.message ?? ""
            XCTAssertEqual((error as? StoreError)?.operation, "sync")
            XCTAssertTrue(message.contains("relay.db-wal") && message.contains("No such file"), message)
        }
    }

    func testPeriodicSyncAcknowledgesBeforeTheSyncAndSyncsInTheBackground() throws {
        let database = try Database(path: path)
        try database.migrate(StoreSchema.migrations)
        // The first commit's sync comes an interval after it (200 ms), so the five commits below
        // are answered long before it unless this thread stalls for that long.
        let writer = StoreWriter(database: database, durability: .syncPeriodically(.milliseconds(200)))
        XCTAssertEqual(writer.durability, .syncPeriodically(.milliseconds(200)))
        for seq in 1...5 { try writer.submitAndWait(StoreBatch([.appendEvent(Sample.event(Int64(seq)))])) }
        XCTAssertEqual(writer.currentStatistics.commits, 5)
        // Five commits acknowledged one after the other: none waited for a sync of its own.
        XCTAssertLessThan(writer.currentStatistics.syncs, 5)
        let deadline = Date(timeIntervalSinceNow: 10)
        while writer.currentStatistics.syncs == 0 && Date() < deadline { usleep(5_000) }
        XCTAssertGreaterThan(writer.currentStatistics.syncs, 0, "the background sync ran")
        // Nothing committed since: once a sync that was already due has run, the syncs stop.
        usleep(600_000)
        let settled = writer.currentStatistics.syncs
        usleep(600_000)
        XCTAssertEqual(writer.currentStatistics.syncs, settled)
        // A commit just before closing is synced by the close, not left to an interval.
        let closing = StoreWriter(database: try reopened(), durability: .syncPeriodically(.seconds(3600)))
        try closing.submitAndWait(StoreBatch([.appendEvent(Sample.event(6))]))
        XCTAssertEqual(closing.currentStatistics.syncs, 0)
        writer.close()
        closing.close()
        XCTAssertEqual(closing.currentStatistics.syncs, 1)
        XCTAssertEqual(closing.currentStatistics.syncFailures, 0)
    }

    func testAFailedPeriodicSyncIsReportedAndTheAcknowledgementsStand() throws {
        let store = try Store(path: path, durability: .syncPeriodically(.milliseconds(10)))
        defer { store.close() }
        let failures = Results()
        store.writer.setSyncFailureObserver { error in failures.add(error.message, .failure(error)) }
        try store.writer.submitAndWait(StoreBatch([.appendEvent(Sample.event(1))]))
        // The log's file is gone from the directory: the commit is acknowledged all the same (it
        // is in the open log, which survives the process), and the background sync says it failed.
        try FileManager.default.removeItem(atPath: path + "-wal")
        try store.writer.submitAndWait(StoreBatch([.appendEvent(Sample.event(2))]))
        let deadline = Date(timeIntervalSinceNow: 10)
        while store.writer.currentStatistics.syncFailures == 0 && Date() < deadline { usleep(5_000) }
        XCTAssertGreaterThan(store.writer.currentStatistics.syncFailures, 0)
        let message = failures.names.first ?? ""
        XCTAssertTrue(message.contains("relay.db-wal") && message.contains("No such file"), message)
        XCTAssertEqual(try store.reader.events(after: 0, limit: 10).map(\.seq), [1, 2])
    }

    func testACompletionThatWaitsOnTheWriterIsRefusedInEitherDurability() throws {
        for durability in [StoreDurability.syncEachCommit, .syncPeriodically(.milliseconds(10))] {
            let store = try Store(path: directory.file("\(durability).db"), durability: durability)
            let results = Results()
            let done = DispatchSemaphore(value: 0)
            store.writer.submit(StoreBatch([.appendEvent(Sample.event(1))])) { [writer = store.writer] result in
                results.add("first", result)
                // Completions run on the store's own threads (the writer's, without a sync
                // thread): waiting there for the writer would never end, so it is refused.
                do throws(StoreError) {
                    try writer.submitAndWait(StoreBatch([.appendEvent(Sample.event(2))]))
                    results.add("nested", .success(()))
                } catch {
                    results.add("nested", .failure(error))
                }
                done.signal()
            }
            XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "\(durability)")
            XCTAssertEqual(results.names, ["first", "nested"])
            XCTAssertEqual(results.failures, ["nested"], "\(durability)")
            XCTAssertEqual(results.messages, ["submitAndWait called on the writer's own thread"])
            store.close()
        }
    }

    /// A migrated database of its own, for a second writer.
    private func reopened() throws -> Database {
        let database = try Database(path: directory.file("other.db"))
        try database.migrate(StoreSchema.migrations)
        return database
    }

    func testDurabilityIsDescribedAsTheStartupLineAndHealthCheckShowIt() {
        XCTAssertEqual(StoreDurability.syncEachCommit.description, "each-commit")
        XCTAssertEqual(StoreDurability.syncPeriodically(.milliseconds(100)).description, "every-0.1s")
        XCTAssertEqual(StoreDurability.syncPeriodically(.milliseconds(250)).description, "every-0.25s")
        XCTAssertEqual(StoreDurability.syncPeriodically(.seconds(2)).description, "every-2s")
    }

    func testNormalSynchronousSkipsTheSync() throws {
        let database = try Database(path: path, options: DatabaseOptions(synchronous: .normal))
        try database.migrate(StoreSchema.migrations)
        let writer = StoreWriter(database: database)
        defer { writer.close() }
        try writer.submitAndWait(StoreBatch([.appendEvent(Sample.event(1))]))
        XCTAssertEqual(writer.currentStatistics.commits, 1)
        XCTAssertEqual(writer.currentStatistics.syncs, 0)
    }
}
