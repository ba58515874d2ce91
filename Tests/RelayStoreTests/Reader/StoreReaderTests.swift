import RelayStore
import XCTest

final class StoreReaderTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var store: Store!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
        store = try Store(path: directory.file("relay.db"))
    }

    override func tearDown() {
        store.close()
        directory.remove()
    }

    private func write(_ writes: [StoreBatch.Write]) throws { try store.writer.submitAndWait(StoreBatch(writes)) }

    func testDocumentsByKindDeviceAndApp() throws {
        try write([
            .upsertDocument(Sample.document("activity", "b", device: "d1", bundle: "app.one")),
            .upsertDocument(Sample.document("activity", "a", device: "d2", bundle: "app.one")),
            .upsertDocument(Sample.document("activity", "c", device: "d1", bundle: "app.two")),
            .upsertDocument(Sample.document("alarm", "a", device: "d1")),
        ])
        let ids = { (documents: [StoredDocument]) in documents.map(\.id) }
        XCTAssertEqual(ids(try store.reader.documents(kind: "activity")), ["a", "b", "c"])
        XCTAssertEqual(ids(try store.reader.documents(kind: "activity", deviceId: "d1")), ["b", "c"])
        XCTAssertEqual(ids(try store.reader.documents(kind: "activity", bundleId: "app.one")), ["a", "b"])
        XCTAssertEqual(ids(try store.reader.documents(kind: "activity", deviceId: "d1", bundleId: "app.two")), ["c"])
        XCTAssertEqual(try store.reader.document(kind: "alarm", id: "a")?.deviceId, "d1")
        XCTAssertNil(try store.reader.document(kind: "alarm", id: "b"))
        XCTAssertNil(try store.reader.meta("absent"))
    }

    func testEventFilters() throws {
        try write([
            .appendEvent(Sample.event(1, type: "activity.started", device: "d1", activity: "a1")),
            .appendEvent(Sample.event(2, type: "alarm.updated", device: "d1", alarm: "x1")),
            .appendEvent(Sample.event(3, type: "activity.updated", device: "d2", bundle: "app.two", activity: "a2")),
            .appendEvent(Sample.event(5, type: "activity.updated", device: "d1", activity: "a1")),
            .appendEvent(Sample.event(9, type: "clock", device: nil, bundle: nil)),
        ])
        let cases: [(String, Int64, Int, StoredEventFilter, [Int64])] = [
            ("all", 0, 100, .all, [1, 2, 3, 5, 9]),
            ("after", 2, 100, .all, [3, 5, 9]),
            ("limit", 0, 2, .all, [1, 2]),
            ("negative limit", 0, -1, .all, []),
            ("device", 0, 100, StoredEventFilter(deviceId: "d1"), [1, 2, 5]),
            ("bundle", 0, 100, StoredEventFilter(bundleId: "app.two"), [3]),
            ("activity", 0, 100, StoredEventFilter(activityId: "a1"), [1, 5]),
            ("alarm", 0, 100, StoredEventFilter(alarmId: "x1"), [2]),
            ("types", 0, 100, StoredEventFilter(types: ["activity.updated", "clock"]), [3, 5, 9]),
            ("no types", 0, 100, StoredEventFilter(types: []), []),
            ("device and type", 0, 100, StoredEventFilter(deviceId: "d1", types: ["activity.updated"]), [5]),
            ("device and limit", 1, 1, StoredEventFilter(deviceId: "d1"), [2]),
            // Compared whole, byte for byte: a prefix or a longer value is another value.
            ("device prefix", 0, 100, StoredEventFilter(deviceId: "d"), []),
            ("longer activity", 0, 100, StoredEventFilter(activityId: "a1x"), []),
            ("type prefix", 0, 100, StoredEventFilter(types: ["activity"]), []),
        ]
        for (name, after, limit, filter, expected) in cases {
            XCTAssertEqual(
                try store.reader.events(after: after, limit: limit, filter: filter).map(\.seq), expected, name)
        }
        XCTAssertEqual(
            try store.reader.events(after: 4, limit: 1).first,
            Sample.event(
                5, type: "activity.updated",
                device: "d1", activity: "a1"))
        XCTAssertEqual(try store.reader.oldestEventSeq(), 1)
        XCTAssertEqual(try store.reader.latestEventSeq(), 9)
    }

    func testTooManyTypesIsRefused() throws {
        let types = Set((0...StoredEventFilter.maxTypes).map { "t\($0)" })
        XCTAssertThrowsError(try store.reader.events(after: 0, limit: 1, filter: StoredEventFilter(types: types)))
    }

    func testEmptyLogHasNoEnds() throws {
        XCTAssertNil(try store.reader.oldestEventSeq())
        XCTAssertNil(try store.reader.latestEventSeq())
        XCTAssertEqual(try store.reader.pushCount(), 0)
    }

    func testPushFiltersNewestFirst() throws {
        try write([
            .appendPush(Sample.push("p1", token: "t1", bundle: "app.one")),
            .appendPush(Sample.push("p2", token: "t2", bundle: "app.one")),
            .appendPush(Sample.push("p3", token: nil, bundle: "app.two", channel: "c1")),
            .appendPush(Sample.push("p4", token: "t1", bundle: "app.two")),
        ])
        let cases: [(String, PushFilter, Int, [String])] = [
            ("all", .all, 100, ["p4", "p3", "p2", "p1"]),
            ("limit", .all, 2, ["p4", "p3"]),
            ("token", PushFilter(token: "t1"), 100, ["p4", "p1"]),
            ("apns id", PushFilter(apnsId: "p2"), 100, ["p2"]),
            ("unique id", PushFilter(uniqueId: "u-p3"), 100, ["p3"]),
            ("channel", PushFilter(channelId: "c1"), 100, ["p3"]),
            ("bundle", PushFilter(bundleId: "app.one"), 100, ["p2", "p1"]),
            ("token and bundle", PushFilter(token: "t1", bundleId: "app.one"), 100, ["p1"]),
            ("no match", PushFilter(apnsId: "nope"), 100, []),
            ("token prefix", PushFilter(token: "t"), 100, []),
            ("longer bundle", PushFilter(bundleId: "app.one.x"), 100, []),
        ]
        for (name, filter, limit, expected) in cases {
            XCTAssertEqual(try store.reader.pushes(filter: filter, limit: limit).map(\.push.apnsId), expected, name)
        }
        let newest = try store.reader.pushes(limit: 1)
        XCTAssertEqual(newest.first?.push, Sample.push("p4", token: "t1", bundle: "app.two"))
        let older = try store.reader.pushes(before: newest.first?.id, limit: 10).map(\.push.apnsId)
        XCTAssertEqual(older, ["p3", "p2", "p1"])
    }

    func testAPushSearchReadsTheEntriesAloneNotTheEvents() throws {
        try write([
            .appendEvent(Sample.event(1)), .appendPush(Sample.push("p1", token: "t1")),
            .appendPush(Sample.push("p2", token: "t2")),
        ])
        // Damage the block's events: a search of the push log must not read them.
        let database = try Database(path: directory.file("relay.db"))
        try database.execute("UPDATE log_blocks SET events = x'09'")
        XCTAssertEqual(try store.reader.pushes(filter: PushFilter(token: "t1"), limit: 10).map(\.push.apnsId), ["p1"])
        XCTAssertEqual(try store.reader.pushCount(), 2)
        XCTAssertThrowsError(try store.reader.events(after: 0, limit: 10)) { error in
            XCTAssertTrue("\(error)".contains("unknown record tag 9 at byte 0 of events"), "\(error)")
        }
    }
}
