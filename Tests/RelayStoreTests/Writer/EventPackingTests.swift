import XCTest

@testable import RelayStore

/// The event log keeps an event's data packed with LZ4 when that makes it smaller; everything
/// read from the log (events, the documents and push records they carry, what pruning copies out
/// of them) is the data as it was written.
final class EventPackingTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("relay.db") }

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    /// A push record in the shape the relay writes, with its own IDs.
    private static func record(_ n: Int) -> [UInt8] {
        Sample.bytes(
            #"{"activityId":"5c0e1c9e-8f1d-4b7a-9c1e-\#(1000 + n)0a5b2c3d","apnsId":"b5ac550e-185b-4865-8725-\#(2000 + n)35da4d","#
                + #""bundleId":"com.example.bench","headers":{"apns-topic":"com.example.bench.push-type.liveactivity","#
                + #""apns-push-type":"liveactivity","apns-priority":"10","authorization":"bearer (redacted; kid=DEVKEY0000 "#
                + #"iss=DEVTEAM000 iat=1796212889)"},"hint":null,"outcome":"applied","payload":{"aps":{"event":"update","#
                + #""timestamp":1796212949,"content-state":{"progress":0.5,"status":"on its way \#(n)"}}},"reason":null,"#
                + #""receivedAt":1796212892.38657,"status":200,"token":"5f5bed4819d4a6a7dfc6ba5e224122c4e2c9fef67dce7d8ef3"#
                + #"8ea98595f0aca1a8a6b43fe2e938b3","uniqueId":"9411ba04-d582-4e80-a239-\#(3000 + n)1652ba0c"}"#)
    }

    /// A `push.received` event carrying `record(n)`, and its push log entry.
    private static func pushBatch(_ seq: Int64, at time: Double = 1_000) -> StoreBatch {
        let record = record(Int(seq))
        let data =
            Sample.bytes(#"{"at":\#(time),"deviceId":"9b8f6cb7-8bf3-465a-a073-df0827ee4d1a","push":"#) + record
            + Sample.bytes(#","seq":\#(seq),"type":"push.received"}"#)
        var push = Sample.push("p\(seq)", at: time)
        push.record = record
        return StoreBatch([
            .appendEvent(StoredEvent(seq: seq, type: "push.received", at: time, data: data)), .appendPush(push),
        ])
    }

    /// The stored `data` of event `seq`, read directly from its log block.
    private func storedData(_ seq: Int64) throws -> [UInt8] {
        let database = try Database(path: path, options: .reader)
        guard let block = try database.logBlock(holdingEvent: seq), let event = block.event(seq: seq) else { return [] }
        return Array(block.eventBytes[event.stored])
    }

    private static func stored(_ data: [UInt8]) -> [UInt8] {
        EventPacker().withStored(data) { (bytes: UnsafeRawBufferPointer) -> [UInt8] in Array(bytes) }
    }

    func testAnEventInTheRelaysShapeIsPackedToLessThanThreeFifthsAndUnpacksWhole() throws {
        let data = Self.pushBatch(1).writes.compactMap { write -> [UInt8]? in
            if case .appendEvent(let event) = write { return event.data }
            return nil
        }[0]
        let packed = Self.stored(data)
        XCTAssertEqual(packed.first, EventPacking.lz4Tag)
        XCTAssertLessThan(packed.count * 5, data.count * 3, "\(packed.count) of \(data.count) bytes")
        XCTAssertEqual(try packed.withUnsafeBytes { EventPacking.unpacked($0) }.get(), data)
        // One packer packs event after event the same way.
        let packer = EventPacker()
        for _ in 0..<3 {
            XCTAssertEqual(
                packer.withStored(data) { (bytes: UnsafeRawBufferPointer) -> [UInt8] in Array(bytes) }, packed)
        }
    }

    /// The packer reuses one working state: each event must still pack against the dictionary
    /// alone (never against the events packed before it), or a row could not be read on its own.
    func testEachEventPacksAsIfItWereTheFirst() throws {
        let events = (1...40).map { n in Self.record(n % 7) + Sample.bytes(#"{"n":\#(n)}"#) }
        let packer = EventPacker()
        for data in events + events.reversed() {
            let packed = packer.withStored(data) { (bytes: UnsafeRawBufferPointer) -> [UInt8] in Array(bytes) }
            XCTAssertEqual(packed, Self.stored(data), "packed as by a fresh packer")
            XCTAssertEqual(try packed.withUnsafeBytes { EventPacking.unpacked($0) }.get(), data)
        }
    }

    func testTheDictionaryNeverChanges() throws {
        // Every packed row depends on these exact bytes; a new dictionary needs a new tag.
        let bytes = Array(EventPacking.dictionary)
        XCTAssertEqual(bytes.count, 1_613)
        // FNV-1a, 64 bits.
        let digest = bytes.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        XCTAssertEqual(digest, 0x4696_2e7f_9416_2db9)
    }

    func testDataThatWouldNotShrinkIsKeptAsItIs() throws {
        var random = SystemRandomNumberGenerator()
        let noise = (0..<1_000).map { _ in UInt8.random(in: 0...255, using: &random) }
        for data in [Sample.bytes(#"{"seq":1}"#), Sample.bytes(""), noise] {
            XCTAssertEqual(Self.stored(data), data)
            XCTAssertEqual(try data.withUnsafeBytes { EventPacking.unpacked($0) }.get(), data)
        }
        // Except data that starts like packed data: that is packed whatever its size.
        for data in [[EventPacking.lz4Tag], [EventPacking.lz4Tag] + noise] {
            let stored = Self.stored(data)
            XCTAssertEqual(stored.first, EventPacking.lz4Tag)
            XCTAssertNotEqual(stored, data)
            XCTAssertEqual(try stored.withUnsafeBytes { EventPacking.unpacked($0) }.get(), data)
        }
    }

    func testThePackedLogReadsBackEventsAndTheRecordsTheyCarry() throws {
        let store = try Store(path: path)
        defer { store.close() }
        for seq in Int64(1)...3 { try store.writer.submitAndWait(Self.pushBatch(seq, at: Double(seq) * 100)) }
        let written = (1...3).map { seq in
            Self.pushBatch(Int64(seq), at: Double(seq) * 100).writes.compactMap { write -> [UInt8]? in
                if case .appendEvent(let event) = write { return event.data }
                return nil
            }[0]
        }
        for seq in Int64(1)...3 {
            let stored = try storedData(seq)
            XCTAssertEqual(stored.first, EventPacking.lz4Tag, "event \(seq) is packed")
            XCTAssertLessThan(stored.count * 5, written[Int(seq) - 1].count * 3)
        }
        XCTAssertEqual(try store.reader.events(after: 0, limit: 10).map(\.data), written)
        // The push log's records are found by their place in the unpacked data.
        XCTAssertEqual(try store.reader.pushes(limit: 10).map(\.push.record), [3, 2, 1].map { Self.record($0) })
        // Pruning copies the records out of the events it deletes.
        try store.writer.submitAndWait(StoreBatch([.pruneEventsKeepingLast(1)]))
        XCTAssertEqual(try store.reader.events(after: 0, limit: 10).map(\.data), [written[2]])
        XCTAssertEqual(try store.reader.pushes(limit: 10).map(\.push.record), [3, 2, 1].map { Self.record($0) })
    }

    func testADocumentCarriedByAPackedEventReadsWholeBeforeAndAfterItsFlush() throws {
        let store = try Store(path: path)
        defer { store.close() }
        let body = Self.record(7)  // any JSON of that size: the document's body is what the event carries
        try store.writer.submitAndWait(Sample.activityUpdate(1, "a1", body: body))
        XCTAssertEqual(try storedData(1).first, EventPacking.lz4Tag)
        XCTAssertEqual(try store.reader.document(kind: "activity", id: "a1")?.body, body)
        try store.writer.submitAndWait(StoreBatch([.pruneEventsKeepingLast(0)]))
        XCTAssertEqual(try store.reader.events(after: 0, limit: 10), [])
        XCTAssertEqual(try store.reader.document(kind: "activity", id: "a1")?.body, body)
    }

    func testRowsWrittenBeforePackingReadAsTheyWere() throws {
        do {
            let database = try Database(path: path)
            try database.migrate(Array(StoreSchema.migrations.prefix(4)))
            try database.execute(
                """
                INSERT INTO events (seq, type, at, data) VALUES (1, 'push.received', 1000, CAST('{"push":{"a":1}}' AS BLOB));
                INSERT INTO pushes (id, apns_id, received_at, record, event_seq, record_offset, record_length)
                    VALUES (1, 'old', 1000, x'', 1, 8, 7);
                """)
        }
        let store = try Store(path: path)
        defer { store.close() }
        try store.writer.submitAndWait(Self.pushBatch(2))
        XCTAssertEqual(try store.reader.meta("store.eventData"), Sample.bytes("lz4-1"))
        XCTAssertEqual(try store.reader.events(after: 0, limit: 10).first?.data, Sample.bytes(#"{"push":{"a":1}}"#))
        XCTAssertEqual(
            try store.reader.pushes(limit: 10).map(\.push.record), [Self.record(2), Sample.bytes(#"{"a":1}"#)])
    }

    func testDamagedPackedDataIsAnErrorThatSaysSo() throws {
        let store = try Store(path: path)
        defer { store.close() }
        try store.writer.submitAndWait(Self.pushBatch(1))
        let database = try Database(path: path)
        for damage in [
            [0x01, 0xff, 0xff, 0x00, 0x00], [0x01, 0x03], [0x01, 0xff, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff],
        ]
            as [[UInt8]]
        {
            var block = LogBlockBuilder()
            damage.withUnsafeBytes { stored in
                block.appendEvent(
                    seq: 1, at: 1_000, type: "push.received", deviceId: nil, bundleId: nil, activityId: nil,
                    alarmId: nil,
                    carried: nil, stored: stored)
            }
            try database.withStatement("UPDATE log_blocks SET events = ?1") { statement throws(StoreError) in
                try statement.bind(block.eventBytes, at: 1)
                try statement.run()
            }
            XCTAssertThrowsError(try store.reader.events(after: 0, limit: 10), "\(damage)") { error in
                XCTAssertTrue(
                    (error as? StoreError)?.message.contains("packed data is damaged") ?? false, "\(damage): \(error)")
            }
        }
    }

    func testTheSQLFunctionSlicesAsSubstrDoes() throws {
        let database = try Database(path: directory.file("f.db"))
        let packed = Self.stored(Self.record(1))
        let hex = packed.map { String(format: "%02x", $0) }.joined()
        let cases: [(String, [UInt8]?)] = [
            ("relay_data(x'7b2261223a317d')", Sample.bytes(#"{"a":1}"#)),
            ("relay_data(x'7b2261223a317d', 1, 3)", Sample.bytes(#""a""#)),
            ("relay_data(x'7b2261223a317d', 5, 100)", Sample.bytes("1}")),
            ("relay_data(x'7b2261223a317d', 50, 2)", []),
            ("relay_data(NULL)", nil),
            ("relay_data(x'7b7d', NULL, 1)", nil),
            ("relay_data(x'\(hex)')", Self.record(1)),
            ("relay_data(x'\(hex)', 1, 12)", Array(Self.record(1)[1..<13])),
        ]
        for (expression, expected) in cases {
            let value = try database.withStatement("SELECT \(expression)") { statement throws(StoreError) in
                try statement.step() && !statement.isNull(0) ? statement.blob(0) ?? [] : nil
            }
            XCTAssertEqual(value, expected, expression)
        }
    }
}
