import XCTest

@testable import RelayStore

/// A push record or document body that an event of its batch carries is kept as a reference to
/// the event's bytes; the store reads the same value back whatever happens to the event.
final class EmbeddedRecordTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("relay.db") }

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    private static func record(_ apnsId: String) -> [UInt8] {
        Sample.bytes(#"{"apnsId":"\#(apnsId)","headers":{"apns-priority":"10"},"status":200}"#)
    }

    /// A push and the `push.received` event that carries its record, as the service builds them.
    private static func pushBatch(_ seq: Int64, _ apnsId: String, at time: Double = 1_000) -> StoreBatch {
        let record = record(apnsId)
        let data =
            Sample.bytes(#"{"at":\#(time),"push":"#) + record + Sample.bytes(#","seq":\#(seq),"type":"push.received"}"#)
        var push = Sample.push(apnsId, at: time)
        push.record = record
        return StoreBatch([
            .appendEvent(StoredEvent(seq: seq, type: "push.received", at: time, data: data)),
            .appendPush(push),
        ])
    }

    /// (seq of the event holding the record, or nil; length of the record stored in the entry) of
    /// each push log entry, oldest first, read directly from the log blocks.
    private func rows() throws -> [[Int64?]] {
        let database = try Database(path: path, options: .reader)
        var rows: [[Int64?]] = []
        try database.forEachLogBlock(withPushesFrom: Int64.min, before: nil) { block throws(StoreError) in
            for push in block.pushes.reversed() {
                switch push.record {
                case .inline(let range): rows.append([nil, Int64(range.count)])
                case .embedded(let record): rows.append([record.seq, 0])
                }
            }
            return true
        }
        return rows.reversed()
    }

    /// How many log blocks the file holds.
    private func blockCount() throws -> Int64? {
        try Database(path: path, options: .reader).optionalInteger("SELECT count(*) FROM log_blocks")
    }

    func testRecordCarriedByAnEventOfTheBatchIsStoredOnceAndReadWhole() throws {
        let store = try Store(path: path)
        defer { store.close() }
        try store.writer.submitAndWait(Self.pushBatch(1, "p1"))
        XCTAssertEqual(try rows(), [[1, 0]])
        XCTAssertEqual(try store.reader.pushes(limit: 10).map(\.push.record), [Self.record("p1")])
        XCTAssertEqual(try store.reader.pushes(filter: PushFilter(apnsId: "p1"), limit: 10).count, 1)
    }

    func testRecordNoEventCarriesIsStoredInItsRow() throws {
        let store = try Store(path: path)
        defer { store.close() }
        var batch = StoreBatch([.appendEvent(Sample.event(1))])
        batch.append(Sample.push("p1"))
        try store.writer.submitAndWait(batch)
        try store.writer.submitAndWait(StoreBatch([.appendPush(Sample.push("p2"))]))
        let length = Int64(Sample.push("p1").record.count)
        XCTAssertEqual(try rows(), [[nil, length], [nil, length]])
        XCTAssertEqual(try store.reader.pushes(limit: 10).map(\.push), [Sample.push("p2"), Sample.push("p1")])
    }

    func testPruningEventsLeavesTheRecordsTheyCarryToThePushLog() throws {
        let store = try Store(path: path)
        defer { store.close() }
        for seq in Int64(1)...4 {
            try store.writer.submitAndWait(Self.pushBatch(seq, "p\(seq)", at: Double(seq) * 100))
        }
        try store.writer.submitAndWait(StoreBatch([.pruneEventsKeepingLast(3)]))
        try store.writer.submitAndWait(StoreBatch([.pruneEventsBefore(350)]))
        XCTAssertEqual(try store.reader.events(after: 0, limit: 10).map(\.seq), [4])
        // An entry and the event holding its record share a block, which stays while the entry does.
        XCTAssertEqual(try rows(), [[1, 0], [2, 0], [3, 0], [4, 0]])
        try store.writer.submitAndWait(StoreBatch([.pruneEventsKeepingLast(0)]))
        XCTAssertEqual(try store.reader.events(after: 0, limit: 10), [])
        XCTAssertEqual(try store.reader.oldestEventSeq(), nil)
        XCTAssertEqual(
            try store.reader.pushes(limit: 10).map(\.push.record), (1...4).reversed().map { Self.record("p\($0)") })
        XCTAssertEqual(try blockCount(), 4)
        // Once neither log needs a block, it goes.
        try store.writer.submitAndWait(StoreBatch([.prunePushesKeepingLast(1)]))
        XCTAssertEqual(try blockCount(), 1)
        XCTAssertEqual(try store.reader.pushes(limit: 10).map(\.push.record), [Self.record("p4")])
        XCTAssertEqual(try store.reader.pushCount(), 1)
    }

    func testReferencesSurviveAReopen() throws {
        do {
            let store = try Store(path: path)
            try store.writer.submitAndWait(Self.pushBatch(1, "p1"))
            store.close()
        }
        let store = try Store(path: path)
        defer { store.close() }
        XCTAssertEqual(try store.reader.pushes(limit: 10).map(\.push.record), [Self.record("p1")])
    }

    func testVersion3KeepsRecordsWrittenBefore() throws {
        do {
            let database = try Database(path: path)
            try database.migrate(Array(StoreSchema.migrations.prefix(2)))
            try database.execute(
                "INSERT INTO pushes (id, apns_id, token, received_at, record) VALUES (1, 'old', 'tok1', 1000, x'7b7d')")
        }
        let store = try Store(path: path)
        defer { store.close() }
        try store.writer.submitAndWait(Self.pushBatch(1, "new"))
        XCTAssertEqual(try store.reader.pushes(limit: 10).map(\.push.record), [Self.record("new"), Sample.bytes("{}")])
    }

    /// An activity document and the `activity.updated` event that carries its body.
    private static func documentBatch(_ seq: Int64, _ id: String, state: String, at time: Double = 1_000) -> StoreBatch
    {
        let body = Sample.bytes(#"{"id":"\#(id)","state":"\#(state)"}"#)
        let data = Sample.bytes(#"{"activity":"#) + body + Sample.bytes(#","at":\#(time),"seq":\#(seq)}"#)
        var document = Sample.document("activity", id, device: "d1", bundle: "app.one")
        document.state = state
        document.body = body
        return StoreBatch([
            .upsertDocument(document),
            .appendEvent(StoredEvent(seq: seq, type: "activity.updated", at: time, activityId: id, data: data)),
        ])
    }

    /// (event_seq, length of the stored body) of each document, by id, read directly.
    private func documentRows() throws -> [[Int64?]] {
        let database = try Database(path: path, options: .reader)
        return try database.withStatement("SELECT event_seq, length(body) FROM documents ORDER BY id") {
            statement throws(StoreError) in
            var rows: [[Int64?]] = []
            while try statement.step() {
                rows.append([statement.isNull(0) ? nil : statement.int64(0), statement.int64(1)])
            }
            return rows
        }
    }

    func testDocumentBodyCarriedByAnEventIsStoredOnceAndReadWhole() throws {
        let store = try Store(path: path)
        defer { store.close() }
        try store.writer.submitAndWait(Self.documentBatch(1, "a1", state: "active"))
        try store.writer.submitAndWait(Self.documentBatch(2, "a1", state: "stale"))
        try store.writer.submitAndWait(StoreBatch([.upsertDocument(Sample.document("activity", "a2"))]))
        XCTAssertEqual(try documentRows(), [[2, 0], [nil, Int64(Sample.document("activity", "a2").body.count)]])
        let read = try store.reader.documents(kind: "activity", deviceId: "d1")
        XCTAssertEqual(read.map(\.body), [Sample.bytes(#"{"id":"a1","state":"stale"}"#)])
        XCTAssertEqual(read.map(\.state), ["stale"])
        XCTAssertEqual(try store.reader.document(kind: "activity", id: "a1")?.body, read.first?.body)
        // Written again without an event: the body is back in its row.
        try store.writer.submitAndWait(
            StoreBatch([.upsertDocument(Sample.document("activity", "a1", device: "d1", bundle: "app.one"))]))
        XCTAssertEqual(
            try store.reader.document(kind: "activity", id: "a1"),
            Sample.document("activity", "a1", device: "d1", bundle: "app.one"))
        XCTAssertEqual(try documentRows().first?.first, .some(nil))
    }

    func testPruningEventsCopiesDocumentBodiesAndTheySurviveAReopen() throws {
        do {
            let store = try Store(path: path)
            try store.writer.submitAndWait(Self.documentBatch(1, "a1", state: "active"))
            try store.writer.submitAndWait(Self.documentBatch(2, "a2", state: "active"))
            try store.writer.submitAndWait(StoreBatch([.pruneEventsKeepingLast(1)]))
            store.close()
        }
        let length = Int64(Sample.bytes(#"{"id":"a1","state":"active"}"#).count)
        XCTAssertEqual(try documentRows(), [[nil, length], [2, 0]])
        let store = try Store(path: path)
        defer { store.close() }
        XCTAssertEqual(
            try store.reader.documents(kind: "activity").map(\.body),
            ["a1", "a2"].map { Sample.bytes(#"{"id":"\#($0)","state":"active"}"#) })
        try store.writer.submitAndWait(StoreBatch([.pruneEventsBefore(5_000)]))
        XCTAssertEqual(try documentRows(), [[nil, length], [nil, length]])
        XCTAssertEqual(try store.reader.documents(kind: "activity").count, 2)
    }
}
