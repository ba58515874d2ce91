/// Encodes header lists into HPACK header blocks (RFC 7541), one encoder per connection direction.
///
/// Policy: a field found whole in the static or dynamic table is sent as an index. Otherwise it is a
/// literal, naming its field by index when the name is in a table. `authorization` and `:path` are
/// never-indexed literals (they are per-request or secret, and APNs asks that they not fill its table);
/// every other literal is added to the dynamic table, unless it alone would not fit. Strings are
/// Huffman-coded when that is shorter, except the values of per-message IDs, which are sent raw.
/// Names must be lowercase, as HTTP/2 requires; they are sent as given.
public struct HPACKEncoder: Sendable {
    /// The encoder never uses a dynamic table larger than this, whatever the peer allows: our own
    /// headers are small, and memory is ours.
    package static let tableSizeCap = 65_536

    /// The table size both ends assume before any size update (RFC 7540 §6.5.2).
    package static let protocolInitialTableSize = 4096

    private var table: HPACKDynamicTable
    /// Latest insertion sequence number of each whole field and of each name in the dynamic table.
    /// Entries can be stale (evicted); `table.index(ofInsertion:)` tells, and `pruneIndices` drops them.
    private var fieldInsertions: [HPACKField: Int] = [:]
    private var nameInsertions: [String: Int] = [:]
    /// For each name of `uniqueValueSlot`, the one field of that name added to the dynamic table
    /// (its value and insertion number); it may since have been evicted.
    private var uniqueEntries: [(value: String, insertion: Int)?] = [nil, nil, nil, nil]
    /// Size updates owed at the start of the next block: the smallest size reached since the last block
    /// and the current one (RFC 7541 §4.2).
    private var pendingSizeUpdate: (smallest: Int, current: Int)?

    /// An encoder whose dynamic table holds up to `maxTableSize` octets (capped at `tableSizeCap`).
    /// When that differs from the protocol's initial 4096, the first block starts with a size update.
    public init(maxTableSize: Int = 4096) {
        let size = Self.effectiveSize(maxTableSize)
        table = HPACKDynamicTable(maxSize: size)
        if size != Self.protocolInitialTableSize {
            pendingSizeUpdate = (size, size)
        }
    }

    /// Emits a dynamic table size update at the start of the next block (after the peer's
    /// SETTINGS_HEADER_TABLE_SIZE changes). Entries that no longer fit are evicted now.
    package mutating func setMaxTableSize(_ size: Int) {
        let newSize = Self.effectiveSize(size)
        guard newSize != table.maxSize else { return }
        table.resize(to: newSize)
        let smallest = min(pendingSizeUpdate?.smallest ?? newSize, newSize)
        pendingSizeUpdate = (smallest, newSize)
    }

    /// The current dynamic table size limit.
    package var maxTableSize: Int { table.maxSize }

    /// Appends the header block for `headers`, in order, to `buffer`.
    public mutating func encode(_ headers: [(name: String, value: String)], into buffer: inout [UInt8]) {
        if let update = pendingSizeUpdate {
            if update.smallest < update.current {
                HPACKInteger.encode(update.smallest, prefixBits: 5, flags: 0x20, into: &buffer)
            }
            HPACKInteger.encode(update.current, prefixBits: 5, flags: 0x20, into: &buffer)
            pendingSizeUpdate = nil
        }
        for header in headers {
            encode(HPACKField(name: header.name, value: header.value), into: &buffer)
        }
    }

    // MARK: - Representations

    private mutating func encode(_ field: HPACKField, into buffer: inout [UInt8]) {
        if let slot = Self.uniqueValueSlot(field.name) {
            encodeUnique(field, slot: slot, into: &buffer)
            return
        }
        if let index = HPACKStaticTable.index(of: field) ?? dynamicIndex(of: field) {
            HPACKInteger.encode(index, prefixBits: 7, flags: 0x80, into: &buffer)
            return
        }
        let nameIndex = HPACKStaticTable.index(ofName: field.name) ?? dynamicIndex(ofName: field.name) ?? 0
        if Self.isNeverIndexed(field.name) {
            HPACKInteger.encode(nameIndex, prefixBits: 4, flags: 0x10, into: &buffer)
        } else {
            encodeIndexedLiteralHead(field, nameIndex: nameIndex, into: &buffer)
        }
        if nameIndex == 0 { Self.encodeString(field.name, into: &buffer) }
        Self.encodeString(field.value, into: &buffer)
    }

    /// A field whose value is new in every message (an ID). The first puts its name (with its
    /// value) in the dynamic table; later ones are literals that are not indexed, naming it there,
    /// so they do not push useful entries out. The static table has none of these names, and the
    /// table holds at most one entry per name (the one `uniqueEntries` remembers), so it is found
    /// without hashing the field or its name.
    private mutating func encodeUnique(_ field: HPACKField, slot: Int, into buffer: inout [UInt8]) {
        var nameIndex = 0
        if let entry = uniqueEntries[slot], let index = table.index(ofInsertion: entry.insertion) {
            if entry.value == field.value {
                HPACKInteger.encode(HPACKStaticTable.count + index, prefixBits: 7, flags: 0x80, into: &buffer)
                return
            }
            nameIndex = HPACKStaticTable.count + index
        }
        if nameIndex != 0 {
            HPACKInteger.encode(nameIndex, prefixBits: 4, flags: 0x00, into: &buffer)
        } else {
            let insertion = table.insertions
            if encodeIndexedLiteralHead(field, nameIndex: 0, into: &buffer) {
                uniqueEntries[slot] = (field.value, insertion)
            }
            Self.encodeString(field.name, into: &buffer)
        }
        // Raw, not Huffman-coded: an ID is never sent twice, and coding it (about a third
        // shorter) cost more on both ends than the bytes it saves.
        UTF8Bytes.with(field.value) { bytes in
            HPACKInteger.encode(bytes.count, prefixBits: 7, flags: 0x00, into: &buffer)
            buffer.append(contentsOf: bytes)
        }
    }

    /// Writes the representation of a literal to be added to the dynamic table and adds it; one
    /// that alone would not fit is written as a literal without indexing instead. True when added.
    @discardableResult
    private mutating func encodeIndexedLiteralHead(
        _ field: HPACKField, nameIndex: Int, into buffer: inout [UInt8]
    ) -> Bool {
        let entry = HPACKDynamicTable.Entry(
            name: field.name, value: field.value,
            nameOctets: field.name.utf8.count, valueOctets: field.value.utf8.count)
        guard entry.size <= table.maxSize else {
            HPACKInteger.encode(nameIndex, prefixBits: 4, flags: 0x00, into: &buffer)
            return false
        }
        HPACKInteger.encode(nameIndex, prefixBits: 6, flags: 0x40, into: &buffer)
        return insert(entry, as: field)
    }

    /// Appends a string literal, Huffman-coded when that is strictly shorter.
    private static func encodeString(_ string: String, into buffer: inout [UInt8]) {
        UTF8Bytes.with(string) { encodeBytes($0, into: &buffer) }
    }

    /// A string's octets, Huffman-coded when that is shorter.
    private static func encodeBytes(_ bytes: UnsafeBufferPointer<UInt8>, into buffer: inout [UInt8]) {
        let huffmanLength = HPACKHuffman.encodedLength(bytes)
        if huffmanLength < bytes.count {
            HPACKInteger.encode(huffmanLength, prefixBits: 7, flags: 0x80, into: &buffer)
            HPACKHuffman.encode(bytes, encodedLength: huffmanLength, into: &buffer)
        } else {
            HPACKInteger.encode(bytes.count, prefixBits: 7, flags: 0x00, into: &buffer)
            buffer.append(contentsOf: bytes)
        }
    }

    /// Response headers whose value differs in every message, each with its slot in
    /// `uniqueEntries`: after the first, which puts the name in the table, they are sent as
    /// literals that are not indexed.
    private static func uniqueValueSlot(_ name: String) -> Int? {
        switch name.utf8.count {
        case 7: return name == "apns-id" ? 0 : nil
        case 14: return name == "apns-unique-id" ? 1 : nil
        case 15: return name == "apns-request-id" ? 2 : name == "apns-channel-id" ? 3 : nil
        default: return nil
        }
    }

    private static func isNeverIndexed(_ name: String) -> Bool {
        name == "authorization" || name == ":path"
    }

    private static func effectiveSize(_ size: Int) -> Int { min(max(0, size), tableSizeCap) }

    // MARK: - Dynamic table lookups

    private func dynamicIndex(of field: HPACKField) -> Int? {
        guard let insertion = fieldInsertions[field], let index = table.index(ofInsertion: insertion) else {
            return nil
        }
        return HPACKStaticTable.count + index
    }

    private func dynamicIndex(ofName name: String) -> Int? {
        guard let insertion = nameInsertions[name], let index = table.index(ofInsertion: insertion) else {
            return nil
        }
        return HPACKStaticTable.count + index
    }

    /// Adds `entry` to the table and indexes it; false when the table refused it.
    @discardableResult
    private mutating func insert(_ entry: HPACKDynamicTable.Entry, as field: HPACKField) -> Bool {
        let insertion = table.insertions
        guard table.insert(entry) else { return false }
        fieldInsertions[field] = insertion
        nameInsertions[field.name] = insertion
        if fieldInsertions.count > 2 * table.count + 32 { pruneIndices() }
        return true
    }

    /// Drops index entries whose table entry was evicted, so the indices stay proportional to the table.
    private mutating func pruneIndices() {
        let table = self.table
        fieldInsertions = fieldInsertions.filter { table.index(ofInsertion: $0.value) != nil }
        nameInsertions = nameInsertions.filter { table.index(ofInsertion: $0.value) != nil }
    }
}
