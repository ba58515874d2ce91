/// Why a stream read's reply could not be used: each case names the rule it broke. The reader that
/// sees one closes the connection, since a server answering nonsense cannot be trusted for what follows.
package enum StreamReplyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The reply is neither null, a map of streams nor an array of `[key, entries]` pairs.
    case notStreams
    /// An entry is not `[id, [field, value, ...]]`, or a field or value is not a string.
    case malformedEntry
    /// An entry id is not `<ms>-<seq>`.
    case badID
    /// An entry's field list has an odd number of elements.
    case oddFields
    /// A stream's entries are not in strictly increasing id order.
    case notIncreasing(StreamID)
    /// More entries than the read's `COUNT` allowed.
    case tooManyEntries(Int)
    /// The reply names a stream the read did not ask for.
    case unexpectedKey

    package var description: String {
        switch self {
        case .notStreams: "stream reply is not a map or array of streams"
        case .malformedEntry: "stream entry is not [id, [field, value, ...]]"
        case .badID: "stream entry id is not <ms>-<seq>"
        case .oddFields: "stream entry has an odd number of field elements"
        case .notIncreasing(let id): "stream entries out of order at \(id)"
        case .tooManyEntries(let count): "stream reply holds \(count) entries, more than asked for"
        case .unexpectedKey: "stream reply names a stream that was not read"
        }
    }
}

/// Reads the replies of `XREAD` and `XRANGE` into `StreamEntry` values, checking their shape and the
/// bound the read asked for. Pure: a reply in, entries or a `StreamReplyError` out.
///
/// `XREAD` answers null when no stream has new entries; otherwise a RESP3 map from key to entries,
/// or in RESP2 an array of `[key, entries]`. Entries are `[id, [field, value, ...]]` in id order.
package enum StreamReply {
    /// The streams of an `XREAD` reply, in the order sent, with at most `maxEntries` entries in all.
    package static func streams(
        _ reply: RESPValue, maxEntries: Int
    ) throws(StreamReplyError) -> [(key: [UInt8], entries: [StreamEntry])] {
        let pairs: [RESPPair]
        switch reply {
        case .null: return []
        case .map(let mapPairs): pairs = mapPairs
        case .array(let values):
            pairs = try values.map { value throws(StreamReplyError) in
                guard let parts = value.elements, parts.count == 2 else { throw .notStreams }
                return RESPPair(key: parts[0], value: parts[1])
            }
        default: throw .notStreams
        }
        var result: [(key: [UInt8], entries: [StreamEntry])] = []
        var total = 0
        for pair in pairs {
            guard case .bulkString(let key) = pair.key else { throw .notStreams }
            let entries = try entries(pair.value, maxEntries: maxEntries - total)
            total += entries.count
            result.append((key, entries))
        }
        return result
    }

    /// The entries of the one stream `key` in an `XREAD` reply (empty when the reply is null).
    package static func entries(
        of key: [UInt8], in reply: RESPValue, maxEntries: Int
    ) throws(StreamReplyError) -> [StreamEntry] {
        let streams = try streams(reply, maxEntries: maxEntries)
        guard streams.count <= 1 else { throw .unexpectedKey }
        guard let stream = streams.first else { return [] }
        guard stream.key == key else { throw .unexpectedKey }
        return stream.entries
    }

    /// An array of entries, as `XRANGE` answers and as each stream of an `XREAD` reply holds.
    package static func entries(_ value: RESPValue, maxEntries: Int) throws(StreamReplyError) -> [StreamEntry] {
        if case .null = value { return [] }
        guard let items = value.elements else { throw .malformedEntry }
        guard items.count <= maxEntries else { throw .tooManyEntries(items.count) }
        var entries: [StreamEntry] = []
        entries.reserveCapacity(items.count)
        for item in items {
            let entry = try entry(item)
            if let last = entries.last, entry.id <= last.id { throw .notIncreasing(entry.id) }
            entries.append(entry)
        }
        return entries
    }

    private static func entry(_ value: RESPValue) throws(StreamReplyError) -> StreamEntry {
        guard let parts = value.elements, parts.count == 2 else { throw .malformedEntry }
        guard let text = parts[0].string else { throw .malformedEntry }
        guard let id = StreamID(text), text.contains("-") else { throw .badID }
        let flat: [RESPValue]
        switch parts[1] {
        case .null: flat = []  // an entry deleted while still referenced: no fields
        case .map(let pairs): flat = pairs.flatMap { [$0.key, $0.value] }
        case .array(let values): flat = values
        default: throw .malformedEntry
        }
        guard flat.count % 2 == 0 else { throw .oddFields }
        var fields: [StreamEntry.Field] = []
        fields.reserveCapacity(flat.count / 2)
        for index in stride(from: 0, to: flat.count, by: 2) {
            guard let name = bytes(flat[index]), let content = bytes(flat[index + 1]) else { throw .malformedEntry }
            fields.append(StreamEntry.Field(name: name, value: content))
        }
        return StreamEntry(id: id, fields: fields)
    }

    private static func bytes(_ value: RESPValue) -> [UInt8]? {
        switch value {
        case .bulkString(let bytes): bytes
        case .simpleString(let text): Array(text.utf8)
        case .verbatim(_, let text): text
        default: nil
        }
    }
}
