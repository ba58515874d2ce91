import Foundation
import RelayStore
import XCTest

/// A document that an event of its batch carries is left to the log and written to its row by a
/// later flush; reads, restarts after a crash, later writes, deletes and pruning all see the
/// document as the last batch left it.
final class CarriedDocumentTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("relay.db") }

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    /// A writer that flushes carried documents only when closed (or as `events` says).
    private func writer(flushEvents: Int = 1_000_000) throws -> StoreWriter {
        let database = try Database(path: path)
        try database.migrate(StoreSchema.migrations)
        return StoreWriter(database: database, documentFlushInterval: .seconds(3_600), documentFlushEvents: flushEvents)
    }

    private static func body(_ id: String, _ version: Int) -> [UInt8] {
        Sample.bytes(#"{"id":"\#(id)","version":\#(version)}"#)
    }

    /// An activity's new version and the `activity.updated` event that carries it, as the service
    /// builds them (document first, then its event).
    private static func update(_ seq: Int64, _ id: String, version: Int, device: String? = "d1") -> StoreBatch {
        let body = body(id, version)
        let data = Sample.bytes(#"{"activity":"#) + body + Sample.bytes(#","seq":\#(seq),"type":"activity.updated"}"#)
        return StoreBatch([
            .upsertDocument(
                StoredDocument(
                    kind: "activity", id: id, deviceId: device, bundleId: "app.one", state: "active", body: body)
            ),
            .appendEvent(
                StoredEvent(
                    seq: seq, type: "activity.updated", at: 1_000, deviceId: "d1", bundleId: "app.one", activityId: id,
                    data: data)),
        ])
    }

    /// The `documents` rows, read directly: id, as_of and whether the body is a reference.
    private func rows() throws -> [String] {
        let database = try Database(path: path, options: .reader)
        return try database.withStatement("SELECT id, as_of, event_seq IS NOT NULL FROM documents ORDER BY id") {
            statement throws(StoreError) in
            var rows: [String] = []
            while try statement.step() {
                let asOf = statement.isNull(1) ? "nil" : String(statement.int64(1))
                rows.append("\(statement.text(0) ?? "") as_of=\(asOf) ref=\(statement.int64(2))")
            }
            return rows
        }
    }

    /// A copy of the database and its log as a crash would leave them (the writer still open).
    private func crashImage() throws -> String {
        let image = directory.file("image")
        try FileManager.default.createDirectory(atPath: image, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path, toPath: image + "/relay.db")
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: image + "/relay.db-wal")
        return image + "/relay.db"
    }

    func testCarriedDocumentIsReadFromTheLogUntilTheFlushWritesItsRow() throws {
        let writer = try writer()
        let reader = try StoreReader(path: path)
        defer { reader.close() }
        try writer.submitAndWait(Self.update(1, "a1", version: 1))
        try writer.submitAndWait(Self.update(2, "a1", version: 2))
        try writer.submitAndWait(Self.update(3, "a2", version: 1))
        XCTAssertEqual(try rows(), [], "no row is written before the flush")
        XCTAssertEqual(try reader.document(kind: "activity", id: "a1")?.body, Self.body("a1", 2))
        XCTAssertEqual(try reader.document(kind: "activity", id: "a1")?.deviceId, "d1")
        XCTAssertEqual(try reader.documents(kind: "activity").map(\.body), [Self.body("a1", 2), Self.body("a2", 1)])
        XCTAssertEqual(try reader.documents(kind: "activity", deviceId: "d1").count, 2)
        XCTAssertEqual(try reader.documents(kind: "activity", deviceId: "d2").count, 0)
        writer.close()
        XCTAssertEqual(try rows(), ["a1 as_of=2 ref=1", "a2 as_of=3 ref=1"], "closing flushes")
        XCTAssertEqual(try reader.documents(kind: "activity").map(\.body), [Self.body("a1", 2), Self.body("a2", 1)])
    }

    func testFlushWritesEachDocumentsLatestVersionAndMovesTheMark() throws {
        let writer = try writer(flushEvents: 3)
        defer { writer.close() }
        for version in 1...3 { try writer.submitAndWait(Self.update(Int64(version), "a1", version: version)) }
        XCTAssertEqual(try rows(), ["a1 as_of=3 ref=1"])
        let reader = try StoreReader(path: path)
        defer { reader.close() }
        XCTAssertEqual(try reader.meta(StoreSchema.documentsThroughKey), Sample.bytes("3"))
        try writer.submitAndWait(Self.update(4, "a1", version: 4))
        XCTAssertEqual(try reader.document(kind: "activity", id: "a1")?.body, Self.body("a1", 4))
    }

    func testLaterFlushesWriteWhatTheWriterNotedAndLeaveNewerRowsAlone() throws {
        let writer = try writer(flushEvents: 2)
        try writer.submitAndWait(Self.update(1, "a1", version: 1))
        try writer.submitAndWait(Self.update(2, "a2", version: 1))
        XCTAssertEqual(try rows(), ["a1 as_of=1 ref=1", "a2 as_of=2 ref=1"], "the first flush reads the log")
        let own = Sample.document("activity", "a2", device: "d1", bundle: "app.one")
        try writer.submitAndWait(Self.update(3, "a2", version: 2))
        // Written in its own row after its carried version: the flush must not put that back.
        try writer.submitAndWait(StoreBatch([.upsertDocument(own)]))
        try writer.submitAndWait(Self.update(4, "a1", version: 2))
        XCTAssertEqual(try rows(), ["a1 as_of=4 ref=1", "a2 as_of=3 ref=0"])
        try writer.submitAndWait(Self.update(5, "a3", version: 1))
        writer.close()
        XCTAssertEqual(try rows(), ["a1 as_of=4 ref=1", "a2 as_of=3 ref=0", "a3 as_of=5 ref=1"])
        let reader = try StoreReader(path: path)
        defer { reader.close() }
        XCTAssertEqual(
            try reader.documents(kind: "activity").map(\.body), [Self.body("a1", 2), own.body, Self.body("a3", 1)])
    }

    func testCrashImageHoldsEveryCarriedDocument() throws {
        let writer = try writer()
        defer { writer.close() }
        for seq in 1...40 { try writer.submitAndWait(Self.update(Int64(seq), "a\(seq % 4)", version: seq)) }
        let image = try crashImage()
        let store = try Store(path: image)
        XCTAssertEqual(
            try store.reader.documents(kind: "activity").map(\.body),
            [Self.body("a0", 40), Self.body("a1", 37), Self.body("a2", 38), Self.body("a3", 39)])
        // The restarted writer's flush writes the rows from the log it inherited.
        store.close()
        let reopened = try Store(path: image)
        defer { reopened.close() }
        XCTAssertEqual(try reopened.reader.document(kind: "activity", id: "a3")?.body, Self.body("a3", 39))
        let database = try Database(path: image, options: .reader)
        let rows = try database.withStatement("SELECT count(*) FROM documents WHERE as_of IS NOT NULL") {
            statement throws(StoreError) in try statement.step() ? statement.int64(0) : -1
        }
        XCTAssertEqual(rows, 4)
    }

    func testDocumentWrittenAfterItsCarriedVersionIsNotOverriddenByTheLog() throws {
        let writer = try writer()
        defer { writer.close() }
        try writer.submitAndWait(Self.update(1, "a1", version: 1))
        // No event carries this version: it is written at once, current as of the log's end.
        try writer.submitAndWait(
            StoreBatch([.upsertDocument(Sample.document("activity", "a1", device: "d1", bundle: "app.one"))]))
        XCTAssertEqual(try rows(), ["a1 as_of=1 ref=0"])
        let expected = Sample.document("activity", "a1", device: "d1", bundle: "app.one")
        let image = try crashImage()
        let store = try Store(path: image)
        XCTAssertEqual(try store.reader.document(kind: "activity", id: "a1"), expected)
        XCTAssertEqual(try store.reader.documents(kind: "activity"), [expected])
        // Nor by the restarted writer's flush.
        store.close()
        let reopened = try Store(path: image)
        defer { reopened.close() }
        XCTAssertEqual(try reopened.reader.documents(kind: "activity"), [expected])
    }

    func testDeletedDocumentStaysDeletedWhateverTheLogCarries() throws {
        let writer = try writer()
        defer { writer.close() }
        try writer.submitAndWait(Self.update(1, "a1", version: 1))
        try writer.submitAndWait(Self.update(2, "a2", version: 1))
        try writer.submitAndWait(StoreBatch([.deleteDocument(kind: "activity", id: "a1")]))
        let reader = try StoreReader(path: path)
        defer { reader.close() }
        XCTAssertNil(try reader.document(kind: "activity", id: "a1"))
        XCTAssertEqual(try reader.documents(kind: "activity").map(\.id), ["a2"])
        let store = try Store(path: try crashImage())
        defer { store.close() }
        XCTAssertNil(try store.reader.document(kind: "activity", id: "a1"))
        XCTAssertEqual(try store.reader.documents(kind: "activity").map(\.id), ["a2"])
    }

    func testDeleteAfterARestartStillFlushesWhatTheLogCarries() throws {
        let first = try writer()
        try first.submitAndWait(Self.update(1, "a1", version: 1))
        let image = try crashImage()
        first.close()
        // The writer on the crash image has not seen `a1` carried; its delete must not let it back.
        let database = try Database(path: image)
        let writer = StoreWriter(database: database, documentFlushInterval: .seconds(3_600))
        try writer.submitAndWait(StoreBatch([.deleteDocument(kind: "activity", id: "a1")]))
        writer.close()
        let reader = try StoreReader(path: image)
        defer { reader.close() }
        XCTAssertNil(try reader.document(kind: "activity", id: "a1"))
    }

    func testPruningTheCarryingEventsKeepsTheDocuments() throws {
        let writer = try writer()
        defer { writer.close() }
        try writer.submitAndWait(Self.update(1, "a1", version: 1))
        try writer.submitAndWait(Self.update(2, "a2", version: 1))
        var batch = StoreBatch([.appendEvent(Sample.event(3))])
        batch.pruneEvents(keepingLast: 1)
        try writer.submitAndWait(batch)
        let reader = try StoreReader(path: path)
        defer { reader.close() }
        XCTAssertEqual(try reader.events(after: 0, limit: 10).map(\.seq), [3])
        XCTAssertEqual(try reader.documents(kind: "activity").map(\.body), [Self.body("a1", 1), Self.body("a2", 1)])
        XCTAssertEqual(try rows(), ["a1 as_of=1 ref=0", "a2 as_of=2 ref=0"], "bodies copied out of the pruned events")
    }

    func testDocumentNotCarriedAsItsRowWouldBeIsWrittenAtOnce() throws {
        let writer = try writer()
        defer { writer.close() }
        // The event names device d1, the document d2: the row's lookup columns could not come from the event.
        try writer.submitAndWait(Self.update(1, "a1", version: 1, device: "d2"))
        // The event comes before the document in its batch.
        let update = Self.update(2, "a2", version: 1)
        try writer.submitAndWait(StoreBatch([update.writes[1], update.writes[0]]))
        XCTAssertEqual(try rows(), ["a1 as_of=1 ref=1", "a2 as_of=2 ref=1"])
        let reader = try StoreReader(path: path)
        defer { reader.close() }
        XCTAssertEqual(try reader.document(kind: "activity", id: "a1")?.deviceId, "d2")
        XCTAssertEqual(try reader.document(kind: "activity", id: "a2")?.body, Self.body("a2", 1))
    }

    func testRolledBackBatchLeavesNoCarriedDocument() throws {
        let writer = try writer()
        defer { writer.close() }
        try writer.submitAndWait(Self.update(5, "a1", version: 1))
        // Its event's seq is not past the log's end: the batch fails and nothing of it stays.
        XCTAssertThrowsError(try writer.submitAndWait(Self.update(5, "a1", version: 2)))
        let reader = try StoreReader(path: path)
        defer { reader.close() }
        XCTAssertEqual(try reader.document(kind: "activity", id: "a1")?.body, Self.body("a1", 1))
    }
}
