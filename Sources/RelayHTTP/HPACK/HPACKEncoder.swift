/// Encodes header lists into HPACK header blocks (RFC 7541), one encoder per connection direction.
///
/// Policy: a field found whole in the static or dynamic table is sent as an index. Otherwise it is a
/// literal, naming its field by index when the name is in a table. `authorization` and `:path` are
/// never-indexed literals (they are per-request or secret, and APNs asks that they not fill its table);
/// every other literal is added to the dynamic table, unless it alone would not fit. Strings are
/// Huffman-coded when that is shorter. Names must be lowercase, as HTTP/2 requires; they are sent as given.
public struct HPACKEncoder: Sendable {
    /// The encoder never uses a dynamic table larger than this, whatever the peer allows: our own
    /// headers are small, and memory is ours.
    public static let tableSizeCap = 65_536

    /// The table size both ends assume before any size update (RFC 7540 §6.5.2).
    public static let protocolInitialTableSize = 4096

    private var table: HPACKDynamicTable
    /// Latest insertion sequence number of each whole field and of each name in the dynamic table.
    /// Entries can be stale (evicted); `table.index(ofInsertion:)` tells, and `pruneIndices` drops them.
    private var fieldInsertions: [HPACKField: Int] = [:]
    private var nameInsertions: [String: Int] = [:]
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
    public mutating func setMaxTableSize(_ size: Int) {
        let newSize = Self.effectiveSize(size)
        guard newSize != table.maxSize else { return }
        table.resize(to: newSize)
        let smallest = min(pendingSizeUpdate?.smallest ?? newSize, newSize)
        pendingSizeUpdate = (smallest, newSize)
    }

    /// The current dynamic table size limit.
    public var maxTableSize: Int { table.maxSize }

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
        // The static table has no per-message IDs: skip its lookup (a hash of the whole field) for
        // them; the dynamic table may still hold one sent before.
        let unique = Self.hasUniqueValues(field.name)
        if let index = unique ? dynamicIndex(of: field) : HPACKStaticTable.index(of: field) ?? dynamicIndex(of: field) {
            HPACKInteger.encode(index, prefixBits: 7, flags: 0x80, into: &buffer)
            return
        }
        let nameIndex = HPACKStaticTable.index(ofName: field.name) ?? dynamicIndex(ofName: field.name) ?? 0
        if Self.isNeverIndexed(field.name) {
            HPACKInteger.encode(nameIndex, prefixBits: 4, flags: 0x10, into: &buffer)
        } else if nameIndex != 0, unique {
            // A value that is new in every message (an ID) would only push useful entries out.
            HPACKInteger.encode(nameIndex, prefixBits: 4, flags: 0x00, into: &buffer)
        } else {
            let entry = HPACKDynamicTable.Entry(
                name: field.name, value: field.value,
                nameOctets: field.name.utf8.count, valueOctets: field.value.utf8.count)
            if entry.size <= table.maxSize {
                HPACKInteger.encode(nameIndex, prefixBits: 6, flags: 0x40, into: &buffer)
                insert(entry, as: field)
            } else {
                HPACKInteger.encode(nameIndex, prefixBits: 4, flags: 0x00, into: &buffer)
            }
        }
        if nameIndex == 0 { Self.encodeString(field.name, into: &buffer) }
        Self.encodeString(field.value, into: &buffer)
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

    /// Response headers whose value differs in every message: after the first, which puts the
    /// name in the table, they are sent as literals that are not indexed.
    private static func hasUniqueValues(_ name: String) -> Bool {
        switch name.utf8.count {
        case 7: return name == "apns-id"
        case 14: return name == "apns-unique-id"
        case 15: return name == "apns-request-id" || name == "apns-channel-id"
        default: return false
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

    private mutating func insert(_ entry: HPACKDynamicTable.Entry, as field: HPACKField) {
        let insertion = table.insertions
        guard table.insert(entry) else { return }
        fieldInsertions[field] = insertion
        nameInsertions[field.name] = insertion
        if fieldInsertions.count > 2 * table.count + 32 { pruneIndices() }
    }

    /// Drops index entries whose table entry was evicted, so the indices stay proportional to the table.
    private mutating func pruneIndices() {
        let table = self.table
        fieldInsertions = fieldInsertions.filter { table.index(ofInsertion: $0.value) != nil }
        nameInsertions = nameInsertions.filter { table.index(ofInsertion: $0.value) != nil }
    }
}
