import RelayStore
import XCTest

final class RetentionTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var store: Store!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
        store = try Store(path: directory.file("relay.db"))
        var batch = StoreBatch()
        for seq in Int64(1)...10 {
            batch.append(Sample.event(seq * 2, at: Double(seq) * 100))
            batch.append(Sample.push("p\(seq)", at: Double(seq) * 100))
        }
        try store.writer.submitAndWait(batch)
    }

    override func tearDown() {
        store.close()
        directory.remove()
    }

    private func prune(_ write: StoreBatch.Write) throws { try store.writer.submitAndWait(StoreBatch([write])) }
    private func seqs() throws -> [Int64] { try store.reader.events(after: 0, limit: 100).map(\.seq) }
    private func pushIds() throws -> [String?] { try store.reader.pushes(limit: 100).map(\.push.apnsId).reversed() }

    func testEventsKeepingLast() throws {
        try prune(.pruneEventsKeepingLast(20))
        XCTAssertEqual(try seqs().count, 10)
        try prune(.pruneEventsKeepingLast(3))
        XCTAssertEqual(try seqs(), [16, 18, 20])
        XCTAssertEqual(try store.reader.oldestEventSeq(), 16)
        try prune(.pruneEventsKeepingLast(0))
        XCTAssertEqual(try seqs(), [])
    }

    func testEventsBeforeTimeRemoveAPrefix() throws {
        try prune(.pruneEventsBefore(350))
        XCTAssertEqual(try seqs(), [8, 10, 12, 14, 16, 18, 20])
        try prune(.pruneEventsBefore(100))
        XCTAssertEqual(try seqs().count, 7)
        try prune(.pruneEventsBefore(5_000))
        XCTAssertEqual(try seqs(), [])
    }

    func testEventLogKeepsGrowingAfterPruning() throws {
        try prune(.pruneEventsKeepingLast(1))
        try store.writer.submitAndWait(StoreBatch([.appendEvent(Sample.event(21))]))
        XCTAssertThrowsError(try store.writer.submitAndWait(StoreBatch([.appendEvent(Sample.event(19))])))
        XCTAssertEqual(try seqs(), [20, 21])
    }

    func testPushesKeepingLastAndBeforeTime() throws {
        try prune(.prunePushesKeepingLast(4))
        XCTAssertEqual(try pushIds(), ["p7", "p8", "p9", "p10"])
        try prune(.prunePushesBefore(850))
        XCTAssertEqual(try pushIds(), ["p9", "p10"])
        try prune(.prunePushesKeepingLast(0))
        XCTAssertEqual(try store.reader.pushCount(), 0)
    }

    func testPushIdsKeepGrowingAfterTheLogIsEmptiedAndReopened() throws {
        let newest = try XCTUnwrap(store.reader.pushes(limit: 1).first?.id)
        try prune(.prunePushesKeepingLast(0))
        store.close()
        store = try Store(path: directory.file("relay.db"))
        try store.writer.submitAndWait(StoreBatch([.appendPush(Sample.push("p11"))]))
        XCTAssertEqual(try store.reader.pushes(limit: 10).map(\.id), [newest + 1])
        try prune(.prunePushesBefore(5_000))
        try store.writer.submitAndWait(StoreBatch([.appendPush(Sample.push("p12"))]))
        XCTAssertEqual(try store.reader.pushes(limit: 10).map(\.id), [newest + 2])
    }
}
