import Foundation
import RelayStore
import XCTest

final class StoreWriterTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("relay.db") }

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    func testCommittedBatchIsReadable() throws {
        let store = try Store(path: path)
        defer { store.close() }
        var batch = StoreBatch()
        batch.upsert(Sample.document("device", "d1"))
        batch.append(Sample.event(1))
        batch.append(Sample.push("p1"))
        batch.setMeta("clock", Sample.bytes("42"))
        try store.writer.submitAndWait(batch)

        XCTAssertEqual(try store.reader.document(kind: "device", id: "d1"), Sample.document("device", "d1"))
        XCTAssertEqual(try store.reader.events(after: 0, limit: 10), [Sample.event(1)])
        XCTAssertEqual(try store.reader.pushes(limit: 10).map(\.push), [Sample.push("p1")])
        XCTAssertEqual(try store.reader.meta("clock"), Sample.bytes("42"))
    }

    func testUpsertReplacesAndDeleteRemoves() throws {
        let store = try Store(path: path)
        defer { store.close() }
        var changed = Sample.document("activity", "a1", device: "d1")
        try store.writer.submitAndWait(StoreBatch([.upsertDocument(changed)]))
        changed.state = "ended"
        changed.body = Sample.bytes("{}")
        try store.writer.submitAndWait(StoreBatch([.upsertDocument(changed), .setMeta(key: "k", value: [1])]))
        XCTAssertEqual(try store.reader.documents(kind: "activity"), [changed])
        try store.writer.submitAndWait(
            StoreBatch([.deleteDocument(kind: "activity", id: "a1"), .deleteMeta(key: "k")]))
        XCTAssertEqual(try store.reader.documents(kind: "activity"), [])
        XCTAssertNil(try store.reader.meta("k"))
    }

    func testDocumentThatMovesToAnotherDeviceOrAppIsFoundThere() throws {
        let store = try Store(path: path)
        defer { store.close() }
        var document = Sample.document("activity", "a1", device: "d1", bundle: "app.one")
        try store.writer.submitAndWait(StoreBatch([.upsertDocument(document)]))
        document.deviceId = "d2"
        try store.writer.submitAndWait(StoreBatch([.upsertDocument(document)]))
        document.bundleId = nil
        document.body = Sample.bytes("{}")
        try store.writer.submitAndWait(StoreBatch([.upsertDocument(document)]))
        XCTAssertEqual(try store.reader.documents(kind: "activity", deviceId: "d1"), [])
        XCTAssertEqual(try store.reader.documents(kind: "activity", deviceId: "d2"), [document])
        XCTAssertEqual(try store.reader.documents(kind: "activity", bundleId: "app.one"), [])
    }

    func testFailingBatchIsUndoneAloneAndItsNeighboursCommit() throws {
        let store = try Store(path: path)
        defer { store.close() }
        try store.writer.submitAndWait(StoreBatch([.appendEvent(Sample.event(5))]))
        let results = Results()
        let good1 = StoreBatch([.appendEvent(Sample.event(6))])
        // The document write must be undone with the failing (non-increasing) event.
        let bad = StoreBatch([.upsertDocument(Sample.document("device", "x")), .appendEvent(Sample.event(6))])
        let good2 = StoreBatch([.appendEvent(Sample.event(7))])
        for (name, batch) in [("good1", good1), ("bad", bad), ("good2", good2)] {
            store.writer.submit(batch) { result in results.add(name, result) }
        }
        store.writer.flush()
        XCTAssertEqual(results.names, ["good1", "bad", "good2"])
        XCTAssertEqual(results.failures, ["bad"])
        XCTAssertTrue(results.messages.contains { $0.contains("not past the end") })
        XCTAssertEqual(try store.reader.events(after: 0, limit: 10).map(\.seq), [5, 6, 7])
        XCTAssertNil(try store.reader.document(kind: "device", id: "x"))
    }

    func testAFailingBatchsPushesLeaveTheSharedBlockAndItsNeighboursStay() throws {
        let store = try Store(path: path)
        defer { store.close() }
        let gate = holdSyncThread(store, committing: 5)
        let results = Results()
        // Held back by the busy sync thread, the three batches share one transaction and one block.
        let batches = [
            ("good1", StoreBatch([.appendPush(Sample.push("a")), .appendEvent(Sample.event(6))])),
            (
                "bad",
                StoreBatch([
                    .appendPush(Sample.push("b")), .appendEvent(Sample.event(7)), .appendEvent(Sample.event(6)),
                ])
            ),
            ("good2", StoreBatch([.appendPush(Sample.push("c")), .appendEvent(Sample.event(7))])),
        ]
        for (name, batch) in batches { store.writer.submit(batch) { result in results.add(name, result) } }
        gate.signal()
        store.writer.flush()
        XCTAssertEqual(results.failures, ["bad"])
        XCTAssertEqual(try store.reader.events(after: 0, limit: 10).map(\.seq), [5, 6, 7])
        let pushes = try store.reader.pushes(limit: 10)
        XCTAssertEqual(Set(pushes.map(\.push.apnsId)), ["a", "c"])
        XCTAssertEqual(try store.reader.pushCount(), 2)
        // Ids only grow, in the order the pushes were appended.
        let ids = Dictionary(uniqueKeysWithValues: pushes.map { ($0.push.apnsId, $0.id) })
        XCTAssertLessThan(try XCTUnwrap(ids["a"]), try XCTUnwrap(ids["c"]))
        // What the block holds is readable again after a reopen.
        store.close()
        let reopened = try Store(path: path)
        defer { reopened.close() }
        XCTAssertEqual(Set(try reopened.reader.pushes(limit: 10).map(\.push.apnsId)), ["a", "c"])
        XCTAssertEqual(try reopened.reader.events(after: 0, limit: 10).map(\.seq), [5, 6, 7])
    }

    func testAnUndoneBatchLeavesTheLogEndWhereTheTableHasIt() throws {
        let store = try Store(path: path)
        defer { store.close() }
        try store.writer.submitAndWait(StoreBatch([.appendEvent(Sample.event(5))]))
        // Alone, and then among others: its events 6 and 7 are applied before its third write fails.
        let bad = StoreBatch([
            .appendEvent(Sample.event(6)), .appendEvent(Sample.event(7)), .appendEvent(Sample.event(7)),
        ])
        XCTAssertThrowsError(try store.writer.submitAndWait(bad))
        try store.writer.submitAndWait(StoreBatch([.appendEvent(Sample.event(6))]))
        let results = Results()
        let group = [
            (
                "bad",
                StoreBatch([
                    .appendEvent(Sample.event(7)), .appendEvent(Sample.event(8)), .appendEvent(Sample.event(2)),
                ])
            ),
            ("good", StoreBatch([.appendEvent(Sample.event(7))])),
        ]
        for (name, batch) in group { store.writer.submit(batch) { result in results.add(name, result) } }
        store.writer.flush()
        XCTAssertEqual(results.failures, ["bad"])
        try store.writer.submitAndWait(StoreBatch([.appendEvent(Sample.event(8))]))
        XCTAssertEqual(try store.reader.events(after: 0, limit: 10).map(\.seq), [5, 6, 7, 8])
        // Pruning every event does not move the end back: numbering goes on past what was pruned.
        try store.writer.submitAndWait(StoreBatch([.pruneEventsKeepingLast(0)]))
        XCTAssertThrowsError(try store.writer.submitAndWait(StoreBatch([.appendEvent(Sample.event(8))])))
        try store.writer.submitAndWait(StoreBatch([.appendEvent(Sample.event(9))]))
        XCTAssertEqual(try store.reader.events(after: 0, limit: 10).map(\.seq), [9])
    }

    func testCompletionRunsOnlyAfterCommit() throws {
        let store = try Store(path: path)
        defer { store.close() }
        // A second, independent connection sees only committed data.
        let observer = try StoreReader(path: path)
        defer { observer.close() }
        let seen = Results()
        for seq in Int64(1)...50 {
            store.writer.submit(StoreBatch([.appendEvent(Sample.event(seq))])) { result in
                let latest = (try? observer.latestEventSeq()) ?? nil
                seen.add(latest.map(String.init) ?? "none", result)
                XCTAssertGreaterThanOrEqual(latest ?? 0, seq, "completion for \(seq) ran before its commit")
            }
        }
        store.writer.flush()
        XCTAssertEqual(seen.names.count, 50)
        XCTAssertEqual(seen.failures, [])
    }

    func testManySubmittersAreServedInOrderAndShareCommits() throws {
        let store = try Store(path: path)
        defer { store.close() }
        let threads = 8
        let perThread = 200
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<perThread {
                let key = "t\(thread)-\(index)"
                store.writer.submit(StoreBatch([.setMeta(key: key, value: [UInt8(index & 0xFF)])])) { result in
                    results.add(key, result)
                }
            }
        }
        store.writer.flush()
        XCTAssertEqual(results.names.count, threads * perThread, "every completion runs exactly once")
        XCTAssertEqual(Set(results.names).count, threads * perThread)
        XCTAssertEqual(results.failures, [])
        for thread in 0..<threads {
            let mine = results.names.filter { $0.hasPrefix("t\(thread)-") }
            XCTAssertEqual(mine, (0..<perThread).map { "t\(thread)-\($0)" }, "each submitter is answered in order")
        }
        let statistics = store.writer.currentStatistics
        XCTAssertEqual(statistics.batches, threads * perThread)
        XCTAssertLessThan(statistics.commits, statistics.batches, "concurrent batches share commits")
        XCTAssertEqual(try store.reader.meta("t7-199"), [199])
    }

    func testGroupObserverRunsAfterEachGroupsCompletionsAndAfterARefusal() throws {
        let store = try Store(path: path)
        let results = Results()
        store.writer.setGroupObserver { results.add("observer", .success(())) }
        for index in 0..<3 {
            store.writer.submit(StoreBatch([.setMeta(key: "k\(index)", value: [])])) { result in
                results.add("batch", result)
            }
        }
        store.writer.flush()
        let names = results.names
        XCTAssertEqual(names.filter { $0 == "batch" }.count, 3)
        XCTAssertEqual(names.last, "observer", "the observer follows the group's completions")
        XCTAssertEqual(names.first, "batch")
        store.close()
        let before = results.names.count
        store.writer.submit(StoreBatch()) { result in results.add("refused", result) }
        XCTAssertEqual(Array(results.names.dropFirst(before)), ["refused", "observer"])
    }

    func testBatchesArrivingWhileTheSyncThreadIsBusyShareOneCommit() throws {
        let store = try Store(path: path)
        defer { store.close() }
        let gate = holdSyncThread(store, committing: 1)
        let before = store.writer.currentStatistics.commits
        let results = Results()
        for seq in Int64(2)...21 {
            store.writer.submit(StoreBatch([.appendEvent(Sample.event(seq))])) { result in
                results.add("\(seq)", result)
            }
        }
        // The writer applies them as they come, but commits only once the sync thread is free.
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertEqual(store.writer.currentStatistics.commits, before, "no commit while the sync thread is busy")
        XCTAssertEqual(try store.reader.latestEventSeq(), 1, "what is not committed is not read")
        gate.signal()
        store.writer.flush()
        XCTAssertEqual(results.names, (2...21).map(String.init))
        XCTAssertEqual(results.failures, [])
        XCTAssertEqual(store.writer.currentStatistics.commits, before + 1, "twenty batches, one commit")
        XCTAssertEqual(try store.reader.events(after: 0, limit: 100).map(\.seq), Array(1...21))
    }

    func testAFailingBatchInATransactionHeldOverSeveralGroupsIsUndoneAlone() throws {
        let store = try Store(path: path)
        defer { store.close() }
        let gate = holdSyncThread(store, committing: 5)
        let results = Results()
        // Submitted apart, so that the writer may take them as separate groups into one transaction.
        let batches = [
            ("good1", StoreBatch([.setMeta(key: "good1", value: [1]), .appendEvent(Sample.event(6))])),
            ("bad", StoreBatch([.upsertDocument(Sample.document("device", "x")), .appendEvent(Sample.event(6))])),
            ("good2", StoreBatch([.appendEvent(Sample.event(7))])),
        ]
        for (name, batch) in batches {
            store.writer.submit(batch) { result in results.add(name, result) }
            Thread.sleep(forTimeInterval: 0.01)
        }
        gate.signal()
        store.writer.flush()
        XCTAssertEqual(results.names, ["good1", "bad", "good2"])
        XCTAssertEqual(results.failures, ["bad"])
        XCTAssertEqual(try store.reader.events(after: 0, limit: 10).map(\.seq), [5, 6, 7])
        XCTAssertEqual(try store.reader.meta("good1"), [1])
        XCTAssertNil(try store.reader.document(kind: "device", id: "x"))
    }

    /// Commits event `seq` and holds the sync thread in its completion (completions run there)
    /// until the returned gate is signalled.
    private func holdSyncThread(_ store: Store, committing seq: Int64) -> DispatchSemaphore {
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        store.writer.submit(StoreBatch([.appendEvent(Sample.event(seq))])) { _ in
            entered.signal()
            gate.wait()
        }
        entered.wait()
        return gate
    }

    func testGroupIsCappedSoLaterBatchesGetTheirOwnCommit() throws {
        let database = try Database(path: path)
        try database.migrate(StoreSchema.migrations)
        let writer = StoreWriter(database: database, maxBatchesPerCommit: 4)
        defer { writer.close() }
        for index in 0..<40 { writer.submit(StoreBatch([.setMeta(key: "k\(index)", value: [])])) { _ in } }
        writer.flush()
        XCTAssertGreaterThanOrEqual(writer.currentStatistics.commits, 10)
        XCTAssertEqual(writer.currentStatistics.batches, 40)
    }

    func testReopenAfterCloseShowsEverything() throws {
        do {
            let store = try Store(path: path)
            for seq in Int64(1)...100 {
                var batch = StoreBatch()
                batch.append(Sample.event(seq))
                batch.upsert(Sample.document("activity", "a\(seq)"))
                store.writer.submit(batch) { _ in }
            }
            store.close()
        }
        let store = try Store(path: path)
        defer { store.close() }
        XCTAssertEqual(try store.reader.events(after: 0, limit: 1_000).map(\.seq), Array(1...100))
        XCTAssertEqual(try store.reader.documents(kind: "activity").count, 100)
    }

    func testClosedWriterRefusesAndWriterThreadCannotWaitOnItself() throws {
        let store = try Store(path: path)
        let inner = Results()
        let writer = store.writer
        writer.submit(StoreBatch()) { _ in
            do throws(StoreError) {
                try writer.submitAndWait(StoreBatch())
                inner.add("waited", .success(()))
            } catch {
                inner.add("refused", .failure(error))
            }
        }
        store.close()
        XCTAssertEqual(inner.names, ["refused"])
        XCTAssertThrowsError(try writer.submitAndWait(StoreBatch([.setMeta(key: "k", value: [])])))
    }

    /// Measures commits and batches per second: one waiting submitter (one batch per commit),
    /// a burst of queued batches, and 8 threads each waiting on its own batches (as requests do).
    /// Prints the numbers; asserts only that grouping happened.
    func testMeasuresGroupCommitThroughput() throws {
        let store = try Store(path: path)
        defer { store.close() }
        let next = Counter()
        let batch: @Sendable () -> StoreBatch = { StoreBatch([.appendEvent(Sample.event(next.increment()))]) }
        func measure(_ name: String, batches: Int, _ body: () throws -> Void) rethrows -> Int {
            let before = store.writer.currentStatistics
            let start = Date()
            try body()
            store.writer.flush()
            let seconds = Date().timeIntervalSince(start)
            let commits = store.writer.currentStatistics.commits - before.commits
            print(
                "store throughput, \(name): \(Int(Double(commits) / seconds)) commits/s, "
                    + "\(Int(Double(batches) / seconds)) batches/s, \(batches / max(commits, 1)) batches per commit")
            return commits
        }
        _ = try measure("one waiting submitter", batches: 300) {
            for _ in 0..<300 { try store.writer.submitAndWait(batch()) }
        }
        let burst = measure("burst of 4000 queued", batches: 4_000) {
            for _ in 0..<4_000 { store.writer.submit(batch()) { _ in } }
        }
        _ = measure("8 waiting submitters", batches: 1_600) {
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                for _ in 0..<200 { try? store.writer.submitAndWait(batch()) }
            }
        }
        XCTAssertLessThan(burst, 4_000)
        XCTAssertEqual(try store.reader.latestEventSeq(), 5_900)
    }
}

/// A thread-safe sequence number source.
final class Counter: @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var value: Int64 = 0

    func increment() -> Int64 {
        lock.withLock {
            value += 1
            return value
        }
    }
}

/// Completion results collected from the writer thread.
final class Results: @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var entries: [(String, Result<Void, StoreError>)] = []

    func add(_ name: String, _ result: Result<Void, StoreError>) { lock.withLock { entries.append((name, result)) } }

    var names: [String] { lock.withLock { entries.map(\.0) } }
    var failures: [String] {
        lock.withLock { entries.compactMap { if case .failure = $0.1 { $0.0 } else { nil } } }
    }
    var messages: [String] {
        lock.withLock { entries.compactMap { if case .failure(let error) = $0.1 { error.message } else { nil } } }
    }
}
