import RelayStore
import XCTest

/// A push log entry whose record its `push.received` event carries is held by the event's row
/// (no `pushes` row); the push log reads those entries and the rows together, by id.
final class CarriedPushTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("relay.db") }

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    /// A push and the `push.received` event that carries its record, as the service builds them:
    /// the event has the entry's time and app.
    private static func pushBatch(
        _ seq: Int64, _ apnsId: String, at time: Double = 1_000, eventBundle: String? = "app.one",
        channel: String? = nil
    ) -> StoreBatch {
        let push = push(apnsId, at: time, channel: channel)
        let data = Sample.bytes(#"{"at":\#(time),"push":"#) + push.record + Sample.bytes(#","seq":\#(seq)}"#)
        return StoreBatch([
            .appendEvent(
                StoredEvent(seq: seq, type: "push.received", at: time, deviceId: "d1", bundleId: eventBundle, data: data)),
            .appendPush(push),
        ])
    }

    private static func push(_ apnsId: String, at time: Double = 1_000, channel: String? = nil) -> PushLogEntry {
        var push = Sample.push(apnsId, token: "tok-" + apnsId, channel: channel, at: time)
        push.record = Sample.bytes(#"{"apnsId":"\#(apnsId)","status":200}"#)
        return push
    }

    /// How many rows the `pushes` table has, read directly.
    private func rowCount() throws -> Int64 {
        let database = try Database(path: path, options: .reader)
        return try database.withStatement("SELECT count(*) FROM pushes") { statement throws(StoreError) in
            try statement.step() ? statement.int64(0) : -1
        }
    }

    /// Every entry of the push log, newest first, read `page` at a time with `before`.
    private func pages(_ store: Store, page: Int, filter: PushFilter = .all) throws -> [StoredPush] {
        var all: [StoredPush] = []
        var before: Int64?
        while true {
            let batch = try store.reader.pushes(filter: filter, before: before, limit: page)
            all += batch
            guard batch.count == page, let last = batch.last else { return all }
            before = last.id
        }
    }

    func testAnEntryItsEventCarriesHasNoRowAndReadsWholeThroughEveryFilter() throws {
        let store = try Store(path: path)
        defer { store.close() }
        try store.writer.submitAndWait(Self.pushBatch(7, "p1", channel: "c1"))
        XCTAssertEqual(try rowCount(), 0)
        let expected = Self.push("p1", channel: "c1")
        XCTAssertEqual(try store.reader.pushes(limit: 10).map(\.push), [expected])
        // Numbered past the last id and never below its event's seq.
        XCTAssertEqual(try store.reader.pushes(limit: 10).map(\.id), [7])
        XCTAssertEqual(try store.reader.pushCount(), 1)
        let filters: [(String, PushFilter, Int)] = [
            ("token", PushFilter(token: "tok-p1"), 1), ("other token", PushFilter(token: "tok-p2"), 0),
            ("apns id", PushFilter(apnsId: "p1"), 1), ("other apns id", PushFilter(apnsId: "p2"), 0),
            ("unique id", PushFilter(uniqueId: "u-p1"), 1), ("other unique id", PushFilter(uniqueId: "u-p2"), 0),
            ("channel", PushFilter(channelId: "c1"), 1), ("other channel", PushFilter(channelId: "c2"), 0),
            ("bundle", PushFilter(bundleId: "app.one"), 1), ("other bundle", PushFilter(bundleId: "app.two"), 0),
        ]
        for (name, filter, count) in filters {
            XCTAssertEqual(try store.reader.pushes(filter: filter, limit: 10).count, count, name)
        }
    }

    func testAnEntryWhoseEventHasAnotherAppOrTimeGetsARow() throws {
        let store = try Store(path: path)
        defer { store.close() }
        try store.writer.submitAndWait(Self.pushBatch(1, "p1", eventBundle: "app.two"))
        var otherTime = Self.pushBatch(2, "p2")
        otherTime.writes[1] = .appendPush(Self.push("p2", at: 1_001))
        try store.writer.submitAndWait(otherTime)
        XCTAssertEqual(try rowCount(), 2)
        XCTAssertEqual(try store.reader.pushes(limit: 10).map(\.push), [Self.push("p2", at: 1_001), Self.push("p1")])
    }

    func testRowsAndCarriedEntriesPageTogetherNewestFirst() throws {
        let store = try Store(path: path)
        defer { store.close() }
        // A row, entries held by events (ids jump to the events' seq), a row, more held entries.
        try store.writer.submitAndWait(StoreBatch([.appendPush(Self.push("r1"))]))
        try store.writer.submitAndWait(Self.pushBatch(10, "h1"))
        try store.writer.submitAndWait(Self.pushBatch(11, "h2"))
        try store.writer.submitAndWait(StoreBatch([.appendPush(Self.push("r2"))]))
        try store.writer.submitAndWait(Self.pushBatch(12, "h3"))
        try store.writer.submitAndWait(Self.pushBatch(20, "h4"))
        XCTAssertEqual(try rowCount(), 2)
        let newestFirst = ["h4", "h3", "r2", "h2", "h1", "r1"]
        for page in 1...7 {
            let all = try pages(store, page: page)
            XCTAssertEqual(all.map(\.push.apnsId), newestFirst, "page \(page)")
            XCTAssertEqual(all.map(\.id), [20, 13, 12, 11, 10, 1], "page \(page)")
        }
        XCTAssertEqual(try pages(store, page: 1, filter: PushFilter(bundleId: "app.one")).count, 6)
        XCTAssertEqual(try pages(store, page: 2, filter: PushFilter(token: "tok-r2")).map(\.id), [12])
        XCTAssertEqual(try store.reader.pushCount(), 6)
    }

    func testPruningThePushLogHidesHeldEntriesAndKeepsTheirEvents() throws {
        let store = try Store(path: path)
        defer { store.close() }
        for seq in Int64(1)...5 { try store.writer.submitAndWait(Self.pushBatch(seq, "p\(seq)", at: Double(seq) * 100)) }
        try store.writer.submitAndWait(StoreBatch([.prunePushesKeepingLast(3)]))
        XCTAssertEqual(try store.reader.pushes(limit: 10).map(\.push.apnsId), ["p5", "p4", "p3"])
        XCTAssertEqual(try store.reader.pushCount(), 3)
        XCTAssertEqual(try store.reader.pushes(filter: PushFilter(apnsId: "p1"), limit: 10), [])
        try store.writer.submitAndWait(StoreBatch([.prunePushesBefore(450)]))
        XCTAssertEqual(try store.reader.pushes(limit: 10).map(\.push.apnsId), ["p5"])
        // Keeping more than are left moves nothing back.
        try store.writer.submitAndWait(StoreBatch([.prunePushesKeepingLast(10)]))
        XCTAssertEqual(try store.reader.pushes(limit: 10).map(\.push.apnsId), ["p5"])
        XCTAssertEqual(try store.reader.events(after: 0, limit: 10).count, 5)
        try store.writer.submitAndWait(StoreBatch([.prunePushesKeepingLast(0)]))
        XCTAssertEqual(try store.reader.pushCount(), 0)
        // Numbering goes on past the pruned entries.
        try store.writer.submitAndWait(StoreBatch([.appendPush(Self.push("r1"))]))
        XCTAssertEqual(try store.reader.pushes(limit: 10).map(\.id), [6])
    }

    func testPruningEventsMovesTheEntriesStillInThePushLogToRows() throws {
        let store = try Store(path: path)
        defer { store.close() }
        for seq in Int64(1)...4 { try store.writer.submitAndWait(Self.pushBatch(seq, "p\(seq)", at: Double(seq) * 100)) }
        try store.writer.submitAndWait(StoreBatch([.prunePushesKeepingLast(3)]))
        try store.writer.submitAndWait(StoreBatch([.pruneEventsKeepingLast(1)]))
        XCTAssertEqual(try store.reader.events(after: 0, limit: 10).map(\.seq), [4])
        // p2 and p3 moved to rows; p1 was out of the push log already and stays out.
        XCTAssertEqual(try rowCount(), 2)
        XCTAssertEqual(try store.reader.pushes(limit: 10).map(\.push), (2...4).reversed().map { Self.push("p\($0)", at: Double($0) * 100) })
        XCTAssertEqual(try store.reader.pushes(limit: 10).map(\.id), [4, 3, 2])
        try store.writer.submitAndWait(StoreBatch([.pruneEventsKeepingLast(0)]))
        XCTAssertEqual(try rowCount(), 3)
        XCTAssertEqual(try store.reader.pushes(filter: PushFilter(token: "tok-p4"), limit: 10).map(\.push.record), [Self.push("p4").record])
    }

    func testNumberingGoesOnAfterAReopen() throws {
        do {
            let store = try Store(path: path)
            try store.writer.submitAndWait(Self.pushBatch(5, "p1"))
            try store.writer.submitAndWait(Self.pushBatch(6, "p2"))
            store.close()
        }
        let store = try Store(path: path)
        defer { store.close() }
        try store.writer.submitAndWait(StoreBatch([.appendPush(Self.push("r1"))]))
        try store.writer.submitAndWait(Self.pushBatch(7, "p3"))
        XCTAssertEqual(try store.reader.pushes(limit: 10).map(\.id), [8, 7, 6, 5])
        XCTAssertEqual(try store.reader.pushes(limit: 10).map(\.push.apnsId), ["p3", "r1", "p2", "p1"])
    }
}
