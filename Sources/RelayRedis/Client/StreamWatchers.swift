/// The watches on one stream key and where each one stands: the pure part of `RedisStreamReader`,
/// which reads the key once for all of them.
///
/// Rules, matched one-to-one by the code:
/// 1. Each watch has a position, the last id it was given (or the id it asked to start after).
/// 2. The key is read after `cursor`, the lowest position, so no watch misses an entry.
/// 3. A batch read after `from` reaches a watch only if `from` is at or before the watch's position
///    (a watch added behind a read in flight waits for the next read, which starts at its position);
///    it gets the entries after its position, and its position moves to the last of them.
/// Together: each watch sees every entry after its start, in id order, exactly once.
struct StreamWatchers {
    /// Watches in the order they were added, so handlers run in a stable order.
    private(set) var watches: [(id: UInt64, position: StreamID)] = []

    var isEmpty: Bool { watches.isEmpty }

    /// Rule 2: where the next read starts; nil with no watches.
    var cursor: StreamID? { watches.map(\.position).min() }

    /// Rule 1: adds a watch starting strictly after `after`.
    mutating func add(_ id: UInt64, after: StreamID) {
        watches.append((id, after))
    }

    /// Removes a watch; false if it was not here.
    @discardableResult
    mutating func remove(_ id: UInt64) -> Bool {
        guard let index = watches.firstIndex(where: { $0.id == id }) else { return false }
        watches.remove(at: index)
        return true
    }

    /// Rule 3: splits `entries` (in id order, read after `from`) among the watches, advancing them.
    /// Returns the non-empty deliveries in watch order.
    mutating func distribute(_ entries: [StreamEntry], readAfter from: StreamID) -> [(id: UInt64, [StreamEntry])] {
        guard let last = entries.last else { return [] }
        var deliveries: [(id: UInt64, [StreamEntry])] = []
        for index in watches.indices {
            let position = watches[index].position
            guard from <= position, position < last.id else { continue }
            let start = entries.firstIndex { $0.id > position } ?? entries.endIndex
            deliveries.append((watches[index].id, Array(entries[start...])))
            watches[index].position = last.id
        }
        return deliveries
    }
}
