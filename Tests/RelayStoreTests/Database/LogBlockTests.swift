import XCTest

@testable import RelayStore

/// A log block reads back exactly what its builder appended; a batch undone is dropped from it;
/// and damaged bytes (cut short, an unknown tag, a length past the end) are an error naming the
/// damage, never a crash or a wrong record.
final class LogBlockTests: XCTestCase {
    private let packer = EventPacker()

    /// A block with two events (the second packed, carrying a document and a push's record) and
    /// two pushes (one with its record inline, one embedded in the second event).
    private func sampleBlock() -> (builder: LogBlockBuilder, data: [[UInt8]]) {
        var builder = LogBlockBuilder()
        let plain = Sample.bytes(#"{"seq":7}"#)
        let record = Sample.bytes(#"{"apnsId":"p9","status":200}"#)
        let carrying =
            Sample.bytes(#"{"activity":{"id":"a1","state":"active"},"at":1001.5,"push":"#) + record
            + Sample.bytes(#","seq":8,"type":"activity.updated"}"#)
        packer.withStored(plain) { stored in
            builder.appendEvent(
                seq: 7, at: 1_000.25, type: "alarm.fired", deviceId: nil, bundleId: "app.one", activityId: nil,
                alarmId: "al1", carried: nil, stored: stored)
        }
        builder.appendPush(id: 41, Sample.push("p8", channel: "ch1", at: 1_000.5), embeddedIn: nil)
        packer.withStored(carrying) { stored in
            builder.appendEvent(
                seq: 8, at: 1_001.5, type: "activity.updated", deviceId: "d1", bundleId: "app.one", activityId: "a1",
                alarmId: nil,
                carried: LogBlock.Carried(kind: "activity", id: "a1", state: "active", offset: 12, length: 28),
                stored: stored)
        }
        let offset = carrying.count - record.count - #","seq":8,"type":"activity.updated"}"#.utf8.count
        builder.appendPush(
            id: 42, Sample.push("p9", token: nil, at: 1_001.5),
            embeddedIn: EmbeddedRecord(seq: 8, offset: offset, length: record.count))
        return (builder, [plain, carrying, record])
    }

    func testABlockReadsBackWhatWasAppended() throws {
        let (builder, data) = sampleBlock()
        XCTAssertEqual(builder.firstSeq, 7)
        XCTAssertEqual(builder.lastSeq, 8)
        XCTAssertEqual(builder.firstPushID, 41)
        XCTAssertEqual(builder.lastPushID, 42)
        XCTAssertEqual(builder.eventTimes.map(\.at), [1_000.25, 1_001.5])
        XCTAssertEqual(builder.pushTimes.map(\.id), [41, 42])

        let contents = try builder.contents()
        XCTAssertEqual(contents.events.map(\.seq), [7, 8])
        XCTAssertEqual(contents.events.map(\.type), ["alarm.fired", "activity.updated"])
        XCTAssertEqual(contents.events.map(\.at), [1_000.25, 1_001.5])
        XCTAssertEqual(contents.events[0].deviceId, nil)
        XCTAssertEqual(contents.events[0].alarmId, "al1")
        XCTAssertEqual(contents.events[1].activityId, "a1")
        XCTAssertEqual(
            contents.events[1].carried,
            LogBlock.Carried(kind: "activity", id: "a1", state: "active", offset: 12, length: 28))
        XCTAssertEqual(try contents.data(of: contents.events[0]), data[0])
        XCTAssertEqual(try contents.data(of: contents.events[1]), data[1])
        XCTAssertEqual(try contents.slice(seq: 8, offset: 12, length: 28), Array(data[1][12..<40]))
        XCTAssertEqual(try contents.slice(seq: 9, offset: 0, length: 1), [])
        XCTAssertEqual(try contents.slice(seq: 8, offset: data[1].count + 1, length: 1), [])
        XCTAssertNil(contents.event(seq: 6))

        XCTAssertEqual(contents.pushes.map(\.id), [41, 42])
        XCTAssertEqual(contents.pushes[0].channelId, "ch1")
        XCTAssertEqual(contents.pushes[1].token, nil)
        XCTAssertEqual(contents.pushes[1].uniqueId, "u-p9")
        XCTAssertEqual(try contents.record(of: contents.pushes[0]), Sample.push("p8").record)
        XCTAssertEqual(try contents.record(of: contents.pushes[1]), data[2])
    }

    func testTruncatingToAMarkDropsEverythingAppendedSince() throws {
        var builder = LogBlockBuilder()
        packer.withStored(Sample.bytes("{}")) { stored in
            builder.appendEvent(
                seq: 1, at: 1, type: "t", deviceId: nil, bundleId: nil, activityId: nil, alarmId: nil, carried: nil,
                stored: stored)
        }
        let mark = builder.mark
        let kept = builder.eventBytes
        builder.appendPush(id: 5, Sample.push("x"), embeddedIn: nil)
        packer.withStored(Sample.bytes("{}")) { stored in
            builder.appendEvent(
                seq: 2, at: 2, type: "t", deviceId: nil, bundleId: nil, activityId: nil, alarmId: nil, carried: nil,
                stored: stored)
        }
        builder.truncate(to: mark)
        XCTAssertEqual(builder.eventBytes, kept)
        XCTAssertEqual(builder.pushBytes, [])
        XCTAssertEqual(builder.lastSeq, 1)
        XCTAssertNil(builder.firstPushID)
        XCTAssertNil(builder.lastPushID)
        XCTAssertEqual(builder.eventCount, 1)
        XCTAssertEqual(builder.pushCount, 0)
        XCTAssertEqual(builder.eventTimes.count, 1)
        XCTAssertEqual(builder.pushTimes.count, 0)
        builder.reset()
        XCTAssertTrue(builder.isEmpty)
        XCTAssertNil(builder.firstSeq)
    }

    func testASectionCutShortAnywhereInsideARecordIsDamaged() throws {
        let builder = sampleBlock().builder
        for (name, bytes) in [("events", builder.eventBytes), ("pushes", builder.pushBytes)] {
            func read(_ section: [UInt8]) throws -> LogBlock.Contents {
                name == "events" ? try LogBlock.Contents(events: section) : try LogBlock.Contents(pushes: section)
            }
            // Where each record ends: a cut there leaves whole records, anywhere else it is damage.
            var ends: Set<Int> = [0]
            for count in 1..<bytes.count where (try? read(Array(bytes[..<count]))) != nil { ends.insert(count) }
            XCTAssertEqual(ends.count, 2, "\(name): two records, and a prefix of one whole record")
            for count in 0..<bytes.count where !ends.contains(count) {
                XCTAssertThrowsError(try read(Array(bytes[..<count])), name) { error in
                    XCTAssertTrue("\(error)".contains("the log block is damaged"), "\(error)")
                }
            }
        }
    }

    func testARecordInTheWrongSectionOrAnOverlongNumberOrLengthIsNamed() {
        let builder = sampleBlock().builder
        XCTAssertThrowsError(try LogBlock.Contents(events: builder.eventBytes + builder.pushBytes)) { error in
            XCTAssertTrue(
                "\(error)".contains("unknown record tag 2 at byte \(builder.eventBytes.count) of events"), "\(error)")
        }
        XCTAssertThrowsError(try LogBlock.Contents(pushes: [LogBlock.eventTag])) { error in
            XCTAssertTrue("\(error)".contains("unknown record tag 1 at byte 0 of pushes"), "\(error)")
        }
        // An event whose seq never ends its varint.
        XCTAssertThrowsError(try LogBlock.Contents(events: [LogBlock.eventTag] + Array(repeating: 0xFF, count: 11))) {
            error in
            XCTAssertTrue("\(error)".contains("is too long"), "\(error)")
        }
        // A push whose inline record claims more bytes than the block has.
        var push: [UInt8] = [LogBlock.pushTag, 2]  // id 1
        push += Array(repeating: 0, count: 8)  // receivedAt
        push += Array(repeating: 0, count: 5)  // five absent strings
        push += [0, 0x7F]  // inline, 127 bytes
        XCTAssertThrowsError(try LogBlock.Contents(pushes: push + [1, 2, 3])) { error in
            XCTAssertTrue("\(error)".contains("runs past its end"), "\(error)")
        }
        XCTAssertThrowsError(try LogBlock.Contents(pushes: push.dropLast(2) + [7])) { error in
            XCTAssertTrue("\(error)".contains("unknown record kind 7"), "\(error)")
        }
    }

    /// The sample's records as version 6 wrote them: in the order appended (event, push, event,
    /// push), in one column.
    private func interleavedSample() throws -> (builder: LogBlockBuilder, data: [UInt8]) {
        let builder = sampleBlock().builder
        let contents = try builder.contents()
        let firstEventEnd = contents.events[0].stored.upperBound
        let firstPushEnd = try XCTUnwrap(contents.pushes[0].record.inlineRange).upperBound
        let data =
            Array(builder.eventBytes[..<firstEventEnd]) + Array(builder.pushBytes[..<firstPushEnd])
            + Array(builder.eventBytes[firstEventEnd...]) + Array(builder.pushBytes[firstPushEnd...])
        return (builder, data)
    }

    func testAVersion6BlockSplitsIntoItsSectionsRecordByRecord() throws {
        let (builder, interleaved) = try interleavedSample()
        let sections = try LogBlock.sections(of: interleaved)
        XCTAssertEqual(sections.events, builder.eventBytes)
        XCTAssertEqual(sections.pushes, builder.pushBytes)
        XCTAssertNotEqual(interleaved, builder.pushBytes + builder.eventBytes)
        XCTAssertThrowsError(try LogBlock.sections(of: interleaved + [9])) { error in
            XCTAssertTrue("\(error)".contains("unknown record tag 9 at byte \(interleaved.count) of data"), "\(error)")
        }
    }

    func testMigrationToVersion7SplitsEveryBlockAndKeepsWhatTheLogsHold() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("v6.db")
        let (_, interleaved) = try interleavedSample()
        let data = sampleBlock().data
        do {
            let database = try Database(path: path)
            try database.migrate(Array(StoreSchema.migrations.prefix(6)))
            let sql = """
                INSERT INTO log_blocks (first_seq, last_seq, first_push_id, last_push_id, event_count, push_count, data)
                VALUES (7, 8, 41, 42, 2, 2, ?1)
                """
            try database.withStatement(sql) { statement throws(StoreError) in
                try statement.bind(interleaved, at: 1)
                try statement.run()
            }
        }
        let store = try Store(path: path)
        defer { store.close() }
        let events = try store.reader.events(after: 0, limit: 10)
        XCTAssertEqual(events.map(\.seq), [7, 8])
        XCTAssertEqual(events.map(\.data), [data[0], data[1]])
        let pushes = try store.reader.pushes(limit: 10)
        XCTAssertEqual(pushes.map(\.id), [42, 41])
        XCTAssertEqual(pushes.map(\.push.record), [data[2], Sample.push("p8").record])
        XCTAssertEqual(try store.reader.pushes(filter: PushFilter(channelId: "ch1"), limit: 10).map(\.id), [41])
        XCTAssertEqual(try store.reader.pushCount(), 2)
        // Numbering goes on from the migrated blocks.
        try store.writer.submitAndWait(StoreBatch([.appendEvent(Sample.event(9)), .appendPush(Sample.push("p10"))]))
        XCTAssertEqual(try store.reader.pushes(limit: 1).map(\.id), [43])
        XCTAssertEqual(try store.reader.latestEventSeq(), 9)
    }

    func testADamagedVersion6BlockStopsTheMigrationAndNamesTheBlock() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("v6.db")
        let (_, interleaved) = try interleavedSample()
        do {
            let database = try Database(path: path)
            try database.migrate(Array(StoreSchema.migrations.prefix(6)))
            let sql = """
                INSERT INTO log_blocks (id, first_seq, last_seq, first_push_id, last_push_id, event_count, push_count,
                    data)
                VALUES (17, 7, 8, 41, 42, 2, 2, ?1)
                """
            try database.withStatement(sql) { statement throws(StoreError) in
                try statement.bind(Array(interleaved.dropLast(3)), at: 1)
                try statement.run()
            }
        }
        XCTAssertThrowsError(try Store(path: path)) { error in
            XCTAssertTrue("\(error)".contains("log block 17: the log block is damaged"), "\(error)")
        }
        // Nothing changed: the file is still at version 6 with its block.
        let database = try Database(path: path)
        XCTAssertEqual(try database.userVersion(), 6)
        XCTAssertEqual(try database.optionalInteger("SELECT count(*) FROM log_blocks WHERE data IS NOT NULL"), 1)
    }
}

extension LogBlock.Record {
    fileprivate var inlineRange: Range<Int>? {
        if case .inline(let range) = self { range } else { nil }
    }
}
