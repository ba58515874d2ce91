#if canImport(Glibc)
    import Glibc
#endif

/// Decodes HPACK header blocks (RFC 7541) into header lists, one decoder per connection direction.
///
/// Names and values are returned as decoded, not lowercased or validated (the HTTP/2 layer does that);
/// octets that are not valid UTF-8 become U+FFFD, while table and list sizes count the wire octets.
///
/// Limits: the peer may use a dynamic table up to the size we allow (`setMaxAllowedTableSize`), and the
/// decoded list may not exceed `maxHeaderListSize` (sum of name + value + 32 per field). When the list is
/// too large the decoder still processes the rest of the block, so its table stays in sync with the
/// peer, and then throws `headerListTooLarge`; the caller can refuse the stream and keep the connection.
/// Bounding the block itself is the caller's job (HTTP/2 limits HEADERS + CONTINUATION).
public struct HPACKDecoder: Sendable {
    private var table: HPACKDynamicTable
    private var maxAllowedTableSize: Int
    /// Set when we lowered the allowed size below the table's: the next block must start with an update.
    private var sizeUpdateRequired = false
    private var scratch: [UInt8] = []
    /// Long Huffman-coded literals decoded lately, with the octets that coded them, least recently
    /// used first out: a client sends the same provider token (`authorization`, which encoders
    /// never index) with every request, and decoding it again cost more than the rest of the block.
    private var recentLiterals: [RecentLiteral] = []
    private var literalUses: UInt64 = 0

    private struct RecentLiteral: Sendable {
        var coded: [UInt8]
        var decoded: String
        var octets: Int
        var lastUse: UInt64
    }

    /// Huffman-coded literals at least this long are remembered, up to `recentLiteralCount` of them.
    static let recentLiteralMinimum = 48
    static let recentLiteralCount = 4

    /// The largest decoded header list accepted, counted as the sum of name + value + 32 per field.
    package var maxHeaderListSize: Int

    /// A decoder whose peer may use a dynamic table of `maxTableSize` octets (the table size both ends
    /// start with; 4096 in HTTP/2 until our SETTINGS are acknowledged).
    public init(maxTableSize: Int = 4096, maxHeaderListSize: Int = 16_384) {
        table = HPACKDynamicTable(maxSize: maxTableSize)
        maxAllowedTableSize = max(0, maxTableSize)
        self.maxHeaderListSize = maxHeaderListSize
    }

    /// Sets the largest dynamic table the peer may use: our SETTINGS_HEADER_TABLE_SIZE, once acknowledged.
    /// When it is below the table's current maximum, the peer's next block must begin with a size update
    /// that brings the table within it (RFC 7541 §4.2).
    package mutating func setMaxAllowedTableSize(_ size: Int) {
        maxAllowedTableSize = max(0, size)
        sizeUpdateRequired = table.maxSize > maxAllowedTableSize
    }

    /// The dynamic table's current size and maximum, in octets (for tests and diagnostics).
    package var tableSize: (size: Int, maxSize: Int) { (table.size, table.maxSize) }

    /// The dynamic table's entries, newest first (for tests and diagnostics).
    package var tableEntries: [(name: String, value: String)] {
        (0..<table.count).compactMap { offset in
            table.entry(at: offset + 1).map { ($0.name, $0.value) }
        }
    }

    /// Decodes one complete header block (HEADERS plus any CONTINUATION payloads, concatenated).
    public mutating func decode(_ block: [UInt8]) throws(HPACKError) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(16)  // a request's usual fields, without growing four times
        var index = 0
        var listSize = 0
        var sawField = false
        while index < block.count {
            let start = index
            let first = block[index]
            if first & 0xE0 == 0x20 {
                guard !sawField else {
                    throw HPACKError(.tableSizeUpdateNotAtStart, value: Int(first), offset: start)
                }
                let size = try HPACKInteger.decode(block, at: &index, prefixBits: 5)
                guard size <= maxAllowedTableSize else {
                    throw HPACKError(.tableSizeUpdateTooLarge, value: size, offset: start)
                }
                table.resize(to: size)
                sizeUpdateRequired = false
                continue
            }
            if sizeUpdateRequired {
                throw HPACKError(.tableSizeUpdateMissing, value: table.maxSize, offset: start)
            }
            sawField = true
            let field: HPACKDynamicTable.Entry
            if first & 0x80 != 0 {
                field = try indexedField(try HPACKInteger.decode(block, at: &index, prefixBits: 7), offset: start)
            } else if first & 0x40 != 0 {
                field = try literalField(block, at: &index, prefixBits: 6)
                table.insert(field)
            } else {
                field = try literalField(block, at: &index, prefixBits: 4)
            }
            listSize += field.size
            if listSize <= maxHeaderListSize {
                headers.append((field.name, field.value))
            } else if !headers.isEmpty {
                headers = []  // over the limit: keep decoding for the table's sake, but hold nothing
            }
        }
        if listSize > maxHeaderListSize {
            throw HPACKError(.headerListTooLarge, value: listSize, offset: block.count)
        }
        return headers
    }

    // MARK: - Representations

    private func indexedField(_ index: Int, offset: Int) throws(HPACKError) -> HPACKDynamicTable.Entry {
        if index >= 1, index <= HPACKStaticTable.count {
            let (name, value) = HPACKStaticTable.entries[index - 1]
            return HPACKDynamicTable.Entry(
                name: name, value: value, nameOctets: name.utf8.count, valueOctets: value.utf8.count)
        }
        if let entry = table.entry(at: index - HPACKStaticTable.count) {
            return entry
        }
        throw HPACKError(.invalidIndex, value: index, offset: offset)
    }

    /// Reads a literal field whose name index has a `prefixBits`-bit prefix (0 means a literal name).
    private mutating func literalField(
        _ block: [UInt8], at index: inout Int, prefixBits: Int
    ) throws(HPACKError) -> HPACKDynamicTable.Entry {
        let start = index
        let nameIndex = try HPACKInteger.decode(block, at: &index, prefixBits: prefixBits)
        let name: String
        let nameOctets: Int
        if nameIndex == 0 {
            (name, nameOctets) = try string(block, at: &index)
        } else {
            let entry = try indexedField(nameIndex, offset: start)
            (name, nameOctets) = (entry.name, entry.nameOctets)
        }
        let (value, valueOctets) = try string(block, at: &index)
        return HPACKDynamicTable.Entry(name: name, value: value, nameOctets: nameOctets, valueOctets: valueOctets)
    }

    /// Reads a string literal (RFC 7541 §5.2); returns it with its decoded octet count.
    private mutating func string(_ block: [UInt8], at index: inout Int) throws(HPACKError) -> (String, Int) {
        let start = index
        guard index < block.count else { throw HPACKError(.truncated, value: 0, offset: start) }
        let huffman = block[index] & 0x80 != 0
        let length = try HPACKInteger.decode(block, at: &index, prefixBits: 7)
        guard length <= block.count - index else { throw HPACKError(.truncated, value: length, offset: start) }
        let range = index..<(index + length)
        index += length
        guard huffman else {
            return (String(decoding: block[range], as: UTF8.self), length)
        }
        guard length >= Self.recentLiteralMinimum else {
            scratch.removeAll(keepingCapacity: true)
            try HPACKHuffman.decode(block, range: range, into: &scratch)
            return (String(decoding: scratch, as: UTF8.self), scratch.count)
        }
        literalUses += 1
        if let found = recentLiteral(coding: block, range) {
            recentLiterals[found].lastUse = literalUses
            return (recentLiterals[found].decoded, recentLiterals[found].octets)
        }
        scratch.removeAll(keepingCapacity: true)
        try HPACKHuffman.decode(block, range: range, into: &scratch)
        let decoded = String(decoding: scratch, as: UTF8.self)
        let literal = RecentLiteral(
            coded: Array(block[range]), decoded: decoded, octets: scratch.count, lastUse: literalUses)
        if recentLiterals.count < Self.recentLiteralCount {
            recentLiterals.append(literal)
        } else if let oldest = recentLiterals.indices.min(by: {
            recentLiterals[$0].lastUse < recentLiterals[$1].lastUse
        }) {
            recentLiterals[oldest] = literal
        }
        return (decoded, scratch.count)
    }

    /// The index of the remembered literal coded by exactly `block[range]`, if there is one.
    private func recentLiteral(coding block: [UInt8], _ range: Range<Int>) -> Int? {
        block.withUnsafeBufferPointer { bytes -> Int? in
            guard let base = bytes.baseAddress else { return nil }
            return recentLiterals.firstIndex { literal in
                literal.coded.count == range.count
                    && literal.coded.withUnsafeBufferPointer { coded in
                        coded.baseAddress.map { memcmp($0, base + range.lowerBound, range.count) == 0 } ?? false
                    }
            }
        }
    }
}
