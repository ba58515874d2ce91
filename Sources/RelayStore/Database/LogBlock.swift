/// How the event log and the push log are stored since schema version 6: one `log_blocks` row
/// per commit that appends to either, holding that commit's events and push log entries (see
/// `StoreSchema`). Since version 7 a block's push log entries (`pushes`) and its events
/// (`events`) are two columns, the entries first, so that a search of the push log reads the
/// entries alone and not the events' data, about five times their size.
///
/// A row per event and per push cost the writer three B-tree inserts a push and rewrote the
/// tables' last pages in every commit; one row per commit takes a third less of the writer's time
/// and writes about 40% fewer bytes (bench/README, the ninth and tenth sessions).
///
/// A record starts with its tag byte. Integers are LEB128 varints (signed ones zigzagged first),
/// times 8 bytes little-endian, strings a varint length and UTF-8, optional strings a varint of
/// length + 1 (0 for none).
/// - An event (`eventTag`): seq, at, type, device, app, activity and alarm ids, then the document
///   it carries (kind; when there is one, its id, state, offset and length in the unpacked data),
///   then its data as stored (`EventPacking`), after its length: each event unpacks alone.
/// - A push log entry (`pushTag`): id, received at, apns id, unique id, token, channel, app, then
///   its record: `0` and the bytes, or `1` and the seq, offset and length of the bytes in an event
///   of the same block (`EmbeddedRecord`).
///
/// The `events` section holds only events and the `pushes` section only push log entries; a
/// version 6 block held both, in the order written, in one `data` column (`sections(of:)`).
enum LogBlock {
    static let eventTag: UInt8 = 1
    static let pushTag: UInt8 = 2

    /// The document an event carries: which one, and where in the event's unpacked data.
    struct Carried: Equatable {
        var kind: String
        var id: String
        var state: String?
        var offset: Int
        var length: Int
    }

    /// An event as a block holds it: its data still as stored, at `stored` in the block.
    struct Event {
        var seq: Int64
        var at: Double
        var type: String
        var deviceId: String?
        var bundleId: String?
        var activityId: String?
        var alarmId: String?
        var carried: Carried?
        var stored: Range<Int>
    }

    /// An event as its section holds it, its strings still ranges of the section's bytes: a
    /// filtered read of the log compares them there and makes strings only of what matches.
    struct RawEvent {
        var seq: Int64
        var at: Double
        var type: Range<Int>
        var deviceId: Range<Int>?
        var bundleId: Range<Int>?
        var activityId: Range<Int>?
        var alarmId: Range<Int>?
        var carried: RawCarried?
        var stored: Range<Int>

        /// The document an event carries, its kind, id and state still ranges of the section.
        typealias RawCarried = (kind: Range<Int>, id: Range<Int>, state: Range<Int>?, offset: Int, length: Int)

        /// The event, with its strings, read from `section` (the bytes it was read from).
        func resolved(in section: [UInt8]) -> Event {
            func string(_ range: Range<Int>) -> String { String(decoding: section[range], as: UTF8.self) }
            return Event(
                seq: seq, at: at, type: string(type), deviceId: deviceId.map(string), bundleId: bundleId.map(string),
                activityId: activityId.map(string), alarmId: alarmId.map(string),
                carried: carried.map { carried in
                    Carried(
                        kind: string(carried.kind), id: string(carried.id), state: carried.state.map(string),
                        offset: carried.offset, length: carried.length)
                }, stored: stored)
        }
    }

    /// The data of the event stored at `stored` in `section`, unpacked.
    static func data(stored: Range<Int>, in section: [UInt8]) throws(StoreError) -> [UInt8] {
        try section.withUnsafeBytes { block in
            EventPacking.unpacked(UnsafeRawBufferPointer(rebasing: block[stored]))
        }.get()
    }

    /// Every event of an `events` section, in order, unresolved; damaged bytes, or a record of
    /// another kind, are an error naming where.
    static func rawEvents(_ section: [UInt8]) throws(StoreError) -> [RawEvent] {
        var events: [RawEvent] = []
        var cursor = Cursor(bytes: section, section: "events")
        while !cursor.atEnd {
            try cursor.expect(LogBlock.eventTag)
            events.append(try cursor.event())
        }
        return events
    }

    /// Where a push log entry's record is.
    enum Record: Equatable {
        /// In the block, at this range.
        case inline(Range<Int>)
        /// In the data of the event `seq` of the same block.
        case embedded(EmbeddedRecord)
    }

    /// A push log entry as a block holds it.
    struct Push {
        var id: Int64
        var receivedAt: Double
        var apnsId: String?
        var uniqueId: String?
        var token: String?
        var channelId: String?
        var bundleId: String?
        var record: Record
    }

    /// A push log entry as its section holds it, its strings still ranges of the section's bytes:
    /// a search of the push log compares them there and makes strings only of what matches.
    struct RawPush {
        var id: Int64
        var receivedAt: Double
        var apnsId: Range<Int>?
        var uniqueId: Range<Int>?
        var token: Range<Int>?
        var channelId: Range<Int>?
        var bundleId: Range<Int>?
        var record: Record

        /// The entry, with its strings, read from `section` (the bytes it was read from).
        func resolved(in section: [UInt8]) -> Push {
            func string(_ range: Range<Int>?) -> String? {
                range.map { String(decoding: section[$0], as: UTF8.self) }
            }
            return Push(
                id: id, receivedAt: receivedAt, apnsId: string(apnsId), uniqueId: string(uniqueId),
                token: string(token), channelId: string(channelId), bundleId: string(bundleId), record: record)
        }
    }

    /// Every push log entry of a `pushes` section, in order, unresolved; damaged bytes, or a
    /// record of another kind, are an error naming where.
    static func rawPushes(_ section: [UInt8]) throws(StoreError) -> [RawPush] {
        var pushes: [RawPush] = []
        var cursor = Cursor(bytes: section, section: "pushes")
        while !cursor.atEnd {
            try cursor.expect(LogBlock.pushTag)
            pushes.append(try cursor.push())
        }
        return pushes
    }

    /// What a block holds, in the order written: its events (when their section was read) and its
    /// push log entries (when theirs was).
    struct Contents {
        var eventBytes: [UInt8]
        var pushBytes: [UInt8]
        var events: [Event] = []
        var pushes: [Push] = []

        /// Reads every record of both sections; damaged bytes, or a record in the wrong section,
        /// are an error naming where.
        init(events eventBytes: [UInt8] = [], pushes pushBytes: [UInt8] = []) throws(StoreError) {
            self.eventBytes = eventBytes
            self.pushBytes = pushBytes
            events = try LogBlock.rawEvents(eventBytes).map { $0.resolved(in: eventBytes) }
            pushes = try LogBlock.rawPushes(pushBytes).map { $0.resolved(in: pushBytes) }
        }

        /// The event numbered `seq`, if the block holds it.
        func event(seq: Int64) -> Event? {
            // Events are in seq order: a binary search.
            var low = 0
            var high = events.count
            while low < high {
                let middle = (low + high) / 2
                if events[middle].seq < seq { low = middle + 1 } else { high = middle }
            }
            return low < events.count && events[low].seq == seq ? events[low] : nil
        }

        /// `event`'s data, unpacked.
        func data(of event: Event) throws(StoreError) -> [UInt8] {
            try LogBlock.data(stored: event.stored, in: eventBytes)
        }

        /// `length` bytes at `offset` of the unpacked data of event `seq`; empty when the block
        /// does not hold it or the range falls outside.
        func slice(seq: Int64, offset: Int, length: Int) throws(StoreError) -> [UInt8] {
            guard let event = event(seq: seq) else { return [] }
            let data = try data(of: event)
            guard offset >= 0, length >= 0, offset <= data.count else { return [] }
            return Array(data[offset..<min(data.count, offset + length)])
        }

        /// `push`'s record, wherever the block keeps it (in an event: only when the events were read).
        func record(of push: Push) throws(StoreError) -> [UInt8] {
            switch push.record {
            case .inline(let range): return Array(pushBytes[range])
            case .embedded(let location):
                return try slice(seq: location.seq, offset: location.offset, length: location.length)
            }
        }
    }

    /// The `events` and `pushes` sections of a version 6 block, whose `data` held both kinds of
    /// record in the order written: each record moves to its section as it is.
    static func sections(of data: [UInt8]) throws(StoreError) -> (events: [UInt8], pushes: [UInt8]) {
        var events: [UInt8] = []
        var pushes: [UInt8] = []
        var cursor = Cursor(bytes: data, section: "data")
        while !cursor.atEnd {
            let start = cursor.position
            switch try cursor.byte() {
            case eventTag:
                _ = try cursor.event()
                events += data[start..<cursor.position]
            case pushTag:
                _ = try cursor.push()
                pushes += data[start..<cursor.position]
            case let tag: throw Cursor.damaged("unknown record tag \(tag) at byte \(start) of data")
            }
        }
        return (events, pushes)
    }

    /// Reads a section's bytes front to back.
    private struct Cursor {
        let bytes: [UInt8]
        /// The section's column, for messages.
        let section: String
        var position = 0

        var atEnd: Bool { position >= bytes.count }

        static func damaged(_ problem: String) -> StoreError {
            .store("read log block", "the log block is damaged: \(problem)")
        }

        /// Reads a record's tag, which must be `tag`.
        mutating func expect(_ tag: UInt8) throws(StoreError) {
            let found = try byte()
            guard found == tag else {
                throw Self.damaged("unknown record tag \(found) at byte \(position - 1) of \(section)")
            }
        }

        mutating func byte() throws(StoreError) -> UInt8 {
            guard position < bytes.count else { throw Self.damaged("it ends inside a record") }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func unsigned() throws(StoreError) -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = try byte()
                guard shift < 64 else { throw Self.damaged("a number at byte \(position) is too long") }
                value |= UInt64(byte & 0x7f) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
        }

        mutating func signed() throws(StoreError) -> Int64 {
            let value = try unsigned()
            return Int64(bitPattern: (value >> 1) ^ (0 &- (value & 1)))
        }

        /// A number that is not a length within the block (an offset into an event's data, say).
        mutating func number() throws(StoreError) -> Int { Int(clamping: try unsigned()) }

        /// A length of bytes that follow in the block.
        mutating func count() throws(StoreError) -> Int {
            let value = try unsigned()
            guard value <= UInt64(bytes.count - position) else {
                throw Self.damaged("a length \(value) at byte \(position) runs past its end")
            }
            return Int(value)
        }

        mutating func time() throws(StoreError) -> Double {
            guard bytes.count - position >= 8 else { throw Self.damaged("it ends inside a time") }
            var bits: UInt64 = 0
            for index in 0..<8 { bits |= UInt64(bytes[position + index]) << (8 * UInt64(index)) }
            position += 8
            return Double(bitPattern: bits)
        }

        mutating func range() throws(StoreError) -> Range<Int> {
            let length = try count()
            defer { position += length }
            return position..<(position + length)
        }

        /// Where an optional string's bytes are, nil for none.
        mutating func optionalRange() throws(StoreError) -> Range<Int>? {
            let marker = try unsigned()
            if marker == 0 { return nil }
            let length = Int(clamping: marker - 1)
            guard length <= bytes.count - position else {
                throw Self.damaged("a string at byte \(position) runs past its end")
            }
            defer { position += length }
            return position..<(position + length)
        }

        mutating func event() throws(StoreError) -> RawEvent {
            let seq = try signed()
            let at = try time()
            let type = try range()
            let deviceId = try optionalRange()
            let bundleId = try optionalRange()
            let activityId = try optionalRange()
            let alarmId = try optionalRange()
            var carried: RawEvent.RawCarried?
            if let kind = try optionalRange() {
                carried = (kind, try range(), try optionalRange(), try number(), try number())
            }
            return RawEvent(
                seq: seq, at: at, type: type, deviceId: deviceId, bundleId: bundleId, activityId: activityId,
                alarmId: alarmId, carried: carried, stored: try range())
        }

        mutating func push() throws(StoreError) -> RawPush {
            let id = try signed()
            let receivedAt = try time()
            let apnsId = try optionalRange()
            let uniqueId = try optionalRange()
            let token = try optionalRange()
            let channelId = try optionalRange()
            let bundleId = try optionalRange()
            let record: Record
            switch try byte() {
            case 0: record = .inline(try range())
            case 1:
                record = .embedded(EmbeddedRecord(seq: try signed(), offset: try number(), length: try number()))
            case let kind: throw Self.damaged("unknown record kind \(kind) at byte \(position - 1)")
            }
            return RawPush(
                id: id, receivedAt: receivedAt, apnsId: apnsId, uniqueId: uniqueId, token: token,
                channelId: channelId, bundleId: bundleId, record: record)
        }
    }
}

/// Builds the block of the open transaction (the writer's): records are appended as batches are
/// applied, and the block is inserted as one row just before COMMIT.
struct LogBlockBuilder {
    private var events = LogBlockSection()
    private var pushes = LogBlockSection()
    private(set) var firstSeq: Int64?
    private(set) var lastSeq: Int64?
    private(set) var firstPushID: Int64?
    private(set) var lastPushID: Int64?
    private(set) var eventCount = 0
    private(set) var pushCount = 0
    /// Each event's seq and time, and each push's id and time, for pruning's cut-offs.
    private(set) var eventTimes: [(seq: Int64, at: Double)] = []
    private(set) var pushTimes: [(id: Int64, at: Double)] = []

    /// The `events` section: the events appended, in order.
    var eventBytes: [UInt8] { events.bytes }
    /// The `pushes` section: the push log entries appended, in order.
    var pushBytes: [UInt8] { pushes.bytes }

    var isEmpty: Bool { events.bytes.isEmpty && pushes.bytes.isEmpty }

    /// What the builder holds, read back.
    func contents() throws(StoreError) -> LogBlock.Contents {
        try LogBlock.Contents(events: events.bytes, pushes: pushes.bytes)
    }

    /// What the builder held at some point, to go back to when a batch is undone.
    struct Mark {
        fileprivate var eventBytes: Int
        fileprivate var pushBytes: Int
        fileprivate var firstSeq: Int64?
        fileprivate var lastSeq: Int64?
        fileprivate var firstPushID: Int64?
        fileprivate var lastPushID: Int64?
        fileprivate var eventCount: Int
        fileprivate var pushCount: Int
    }

    var mark: Mark {
        Mark(
            eventBytes: events.bytes.count, pushBytes: pushes.bytes.count, firstSeq: firstSeq, lastSeq: lastSeq,
            firstPushID: firstPushID, lastPushID: lastPushID, eventCount: eventCount, pushCount: pushCount)
    }

    /// Drops what was appended since `mark` was taken.
    mutating func truncate(to mark: Mark) {
        events.truncate(to: mark.eventBytes)
        pushes.truncate(to: mark.pushBytes)
        firstSeq = mark.firstSeq
        lastSeq = mark.lastSeq
        firstPushID = mark.firstPushID
        lastPushID = mark.lastPushID
        eventCount = mark.eventCount
        pushCount = mark.pushCount
        eventTimes.removeSubrange(mark.eventCount...)
        pushTimes.removeSubrange(mark.pushCount...)
    }

    /// Empties the builder (after the block is inserted, or with the transaction rolled back).
    mutating func reset() {
        events.truncate(to: 0)
        pushes.truncate(to: 0)
        firstSeq = nil
        lastSeq = nil
        firstPushID = nil
        lastPushID = nil
        eventCount = 0
        pushCount = 0
        eventTimes.removeAll(keepingCapacity: true)
        pushTimes.removeAll(keepingCapacity: true)
    }

    /// Appends an event whose data is already as stored (`EventPacker`).
    mutating func appendEvent(
        seq: Int64, at: Double, type: String, deviceId: String?, bundleId: String?, activityId: String?,
        alarmId: String?, carried: LogBlock.Carried?, stored: UnsafeRawBufferPointer
    ) {
        events.append(LogBlock.eventTag)
        events.appendSigned(seq)
        events.appendTime(at)
        events.appendString(type)
        events.appendOptional(deviceId)
        events.appendOptional(bundleId)
        events.appendOptional(activityId)
        events.appendOptional(alarmId)
        events.appendOptional(carried?.kind)
        if let carried {
            events.appendString(carried.id)
            events.appendOptional(carried.state)
            events.appendUnsigned(UInt64(carried.offset))
            events.appendUnsigned(UInt64(carried.length))
        }
        events.appendUnsigned(UInt64(stored.count))
        events.append(contentsOf: stored)
        if firstSeq == nil { firstSeq = seq }
        lastSeq = seq
        eventCount += 1
        eventTimes.append((seq, at))
    }

    /// Appends a push log entry, its record in the block or (`embedded`) in an event of it.
    mutating func appendPush(id: Int64, _ push: PushLogEntry, embeddedIn embedded: EmbeddedRecord?) {
        pushes.append(LogBlock.pushTag)
        pushes.appendSigned(id)
        pushes.appendTime(push.receivedAt)
        pushes.appendOptional(push.apnsId)
        pushes.appendOptional(push.uniqueId)
        pushes.appendOptional(push.token)
        pushes.appendOptional(push.channelId)
        pushes.appendOptional(push.bundleId)
        if let embedded {
            pushes.append(1)
            pushes.appendSigned(embedded.seq)
            pushes.appendUnsigned(UInt64(embedded.offset))
            pushes.appendUnsigned(UInt64(embedded.length))
        } else {
            pushes.append(0)
            pushes.appendUnsigned(UInt64(push.record.count))
            push.record.withUnsafeBytes { pushes.append(contentsOf: $0) }
        }
        if firstPushID == nil { firstPushID = id }
        lastPushID = id
        pushCount += 1
        pushTimes.append((id, push.receivedAt))
    }
}

/// The bytes of one section of a block, appended to in the block's encoding (see `LogBlock`).
private struct LogBlockSection {
    private(set) var bytes: [UInt8] = []

    mutating func truncate(to count: Int) { bytes.removeSubrange(count...) }

    mutating func append(_ byte: UInt8) { bytes.append(byte) }

    mutating func append(contentsOf buffer: UnsafeRawBufferPointer) { bytes.append(contentsOf: buffer) }

    mutating func appendUnsigned(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func appendSigned(_ value: Int64) {
        appendUnsigned(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    mutating func appendTime(_ value: Double) {
        var bits = value.bitPattern
        for _ in 0..<8 {
            bytes.append(UInt8(truncatingIfNeeded: bits))
            bits >>= 8
        }
    }

    mutating func appendString(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            appendUnsigned(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func appendOptional(_ value: String?) {
        guard var value else { return bytes.append(0) }
        value.withUTF8 { utf8 in
            appendUnsigned(UInt64(utf8.count) + 1)
            bytes.append(contentsOf: utf8)
        }
    }
}
