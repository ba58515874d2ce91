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

        let contents = try LogBlock.Contents(builder.bytes)
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
        let kept = builder.bytes
        builder.appendPush(id: 5, Sample.push("x"), embeddedIn: nil)
        packer.withStored(Sample.bytes("{}")) { stored in
            builder.appendEvent(
                seq: 2, at: 2, type: "t", deviceId: nil, bundleId: nil, activityId: nil, alarmId: nil, carried: nil,
                stored: stored)
        }
        builder.truncate(to: mark)
        XCTAssertEqual(builder.bytes, kept)
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

    func testABlockCutShortAnywhereInsideARecordIsDamaged() throws {
        let bytes = sampleBlock().builder.bytes
        // Where each record ends: a cut there leaves whole records, anywhere else it is damage.
        var ends: Set<Int> = [0]
        for count in 1..<bytes.count {
            let contents = try? LogBlock.Contents(Array(bytes[..<count]))
            if contents != nil { ends.insert(count) }
        }
        XCTAssertEqual(ends.count, 4, "a whole block of four records, and each prefix of whole records")
        for count in 0..<bytes.count where !ends.contains(count) {
            XCTAssertThrowsError(try LogBlock.Contents(Array(bytes[..<count]))) { error in
                XCTAssertTrue("\(error)".contains("the log block is damaged"), "\(error)")
            }
        }
    }

    func testAnUnknownTagOrAnOverlongNumberOrLengthIsNamed() {
        let bytes = sampleBlock().builder.bytes
        XCTAssertThrowsError(try LogBlock.Contents(bytes + [9])) { error in
            XCTAssertTrue("\(error)".contains("unknown record tag 9 at byte \(bytes.count)"), "\(error)")
        }
        // An event whose seq never ends its varint.
        XCTAssertThrowsError(try LogBlock.Contents([LogBlock.eventTag] + Array(repeating: 0xFF, count: 11))) { error in
            XCTAssertTrue("\(error)".contains("is too long"), "\(error)")
        }
        // A push whose inline record claims more bytes than the block has.
        var push: [UInt8] = [LogBlock.pushTag, 2]  // id 1
        push += Array(repeating: 0, count: 8)  // receivedAt
        push += Array(repeating: 0, count: 5)  // five absent strings
        push += [0, 0x7F]  // inline, 127 bytes
        XCTAssertThrowsError(try LogBlock.Contents(push + [1, 2, 3])) { error in
            XCTAssertTrue("\(error)".contains("runs past its end"), "\(error)")
        }
        XCTAssertThrowsError(try LogBlock.Contents(push.dropLast(2) + [7])) { error in
            XCTAssertTrue("\(error)".contains("unknown record kind 7"), "\(error)")
        }
    }
}
