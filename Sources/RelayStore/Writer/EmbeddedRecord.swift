import Glibc

/// Where a push log record sits, byte for byte, inside the data of an event of the same batch.
///
/// A push's `push.received` event carries the push's whole record under `"push"`, so the push log
/// keeps a reference to those bytes instead of a second copy: a fifth of what every push wrote.
/// `StoreReader.pushes` reads the record back out of the event, and pruning the event log copies
/// it into the push log row before the event goes (see `BatchApplier`), so an entry never loses it.
struct EmbeddedRecord: Equatable {
    /// The event whose data holds the record.
    var seq: Int64
    /// Where the record starts in the event's data, in bytes.
    var offset: Int
    /// The record's length in bytes.
    var length: Int

    /// The first of `events`, searched newest first, whose data contains `record`; nil when none
    /// does or `record` is empty.
    static func find(_ record: [UInt8], in events: [StoredEvent]) -> EmbeddedRecord? {
        locate(record, in: events)?.record
    }

    /// `find`, with the position in `events` of the event that holds the record.
    static func locate(_ record: [UInt8], in events: [StoredEvent]) -> (record: EmbeddedRecord, position: Int)? {
        guard !record.isEmpty else { return nil }
        for position in events.indices.reversed() where events[position].data.count >= record.count {
            let event = events[position]
            let offset = record.withUnsafeBytes { needle in
                event.data.withUnsafeBytes { haystack in Self.offset(of: needle, in: haystack) }
            }
            if let offset { return (EmbeddedRecord(seq: event.seq, offset: offset, length: record.count), position) }
        }
        return nil
    }

    /// The first offset at which `needle` occurs in `haystack` (nil for an empty needle). A record fills most of
    /// its event, so there are few places to try: `memchr` jumps from one occurrence of the
    /// record's first byte (a `{`, rare in JSON) to the next, each settled by the last byte or
    /// `memcmp`. An event that does not hold the record is passed over at `memchr`'s speed.
    static func offset(of needle: UnsafeRawBufferPointer, in haystack: UnsafeRawBufferPointer) -> Int? {
        guard let needleBase = needle.baseAddress, let base = haystack.baseAddress, !needle.isEmpty,
            needle.count <= haystack.count
        else { return nil }
        let first = Int32(needle[0])
        let last = needle[needle.count - 1]
        let lastStart = haystack.count - needle.count
        var start = 0
        while start <= lastStart {
            guard let found = memchr(base + start, first, lastStart - start + 1) else { return nil }
            let candidate = base.distance(to: UnsafeRawPointer(found))
            if haystack[candidate + needle.count - 1] == last, memcmp(base + candidate, needleBase, needle.count) == 0 {
                return candidate
            }
            start = candidate + 1
        }
        return nil
    }
}
