/// The HPACK dynamic table (RFC 7541 §2.3.2, §4): a FIFO of fields, newest at index 1, whose size is the
/// sum over entries of name octets + value octets + 32, kept at or below `maxSize` by evicting the oldest.
///
/// Entries live oldest-first in one array; evictions advance `start`, and the array is compacted once
/// the evicted prefix outgrows the live part, so both insertion and eviction are amortised O(1).
/// Every insertion also gets an increasing sequence number, which lets the encoder keep hash indices that
/// survive evictions without renumbering (see `index(ofInsertion:)`).
package struct HPACKDynamicTable: Sendable {
    /// One entry. Octet counts are as they were on the wire, which can differ from the UTF-8 length of
    /// `name` and `value` when invalid UTF-8 was replaced on decoding.
    package struct Entry: Sendable {
        /// The field name.
        package var name: String
        /// The field value.
        package var value: String
        /// Octets in the name.
        package var nameOctets: Int
        /// Octets in the value.
        package var valueOctets: Int
        /// name octets + value octets + 32.
        package var size: Int { nameOctets + valueOctets + HPACKDynamicTable.entryOverhead }
    }

    /// Per-entry overhead counted in the table size (RFC 7541 §4.1).
    package static let entryOverhead = 32

    /// Current size: the sum of the entries' sizes.
    package private(set) var size = 0
    /// The maximum size, set by the last dynamic table size update.
    package private(set) var maxSize: Int
    /// Sequence number the next inserted entry will get (the number of insertions so far).
    package private(set) var insertions = 0

    private var storage: [Entry] = []
    private var start = 0

    /// An empty table holding at most `maxSize` octets.
    package init(maxSize: Int) {
        self.maxSize = max(0, maxSize)
    }

    /// Number of entries.
    package var count: Int { storage.count - start }

    /// The entry at dynamic index `index` (1 is the newest), or nil when there is none.
    package func entry(at index: Int) -> Entry? {
        guard index >= 1, index <= count else { return nil }
        return storage[storage.count - index]
    }

    /// The current dynamic index of the entry inserted with sequence number `insertion`, or nil once it
    /// has been evicted.
    package func index(ofInsertion insertion: Int) -> Int? {
        let index = insertions - insertion
        return index >= 1 && index <= count ? index : nil
    }

    /// Adds a field as the newest entry, evicting old ones to make room. A field larger than `maxSize`
    /// empties the table and is not added (RFC 7541 §4.4). Returns whether it was added.
    @discardableResult
    package mutating func insert(_ entry: Entry) -> Bool {
        let entrySize = entry.size
        evict(toFit: entrySize)
        guard entrySize <= maxSize else { return false }
        storage.append(entry)
        size += entrySize
        insertions += 1
        return true
    }

    /// Adds a field whose octets are the UTF-8 of `name` and `value`.
    @discardableResult
    package mutating func insert(name: String, value: String) -> Bool {
        insert(Entry(name: name, value: value, nameOctets: name.utf8.count, valueOctets: value.utf8.count))
    }

    /// Changes the maximum size, evicting the oldest entries until the table fits.
    package mutating func resize(to newMaxSize: Int) {
        maxSize = max(0, newMaxSize)
        evict(toFit: 0)
    }

    /// Evicts oldest entries until `extra` more octets fit, or the table is empty.
    private mutating func evict(toFit extra: Int) {
        while size + extra > maxSize, start < storage.count {
            size -= storage[start].size
            start += 1
        }
        if start == storage.count {
            storage.removeAll(keepingCapacity: true)
            start = 0
        } else if start >= 16, start * 2 >= storage.count {
            storage.removeFirst(start)
            start = 0
        }
    }
}
