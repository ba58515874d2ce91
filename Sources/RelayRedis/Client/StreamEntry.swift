/// A Redis Stream entry id, `<ms>-<seq>`: two unsigned 64-bit numbers, ordered as the stream orders
/// its entries. https://redis.io/docs/latest/develop/data-types/streams/#entry-ids
package struct StreamID: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// The milliseconds part.
    package var milliseconds: UInt64
    /// The sequence part.
    package var sequence: UInt64

    /// The id before every entry: reading after it reads the whole stream.
    package static let zero = StreamID(milliseconds: 0, sequence: 0)

    /// The id `milliseconds-sequence`.
    package init(milliseconds: UInt64, sequence: UInt64) {
        self.milliseconds = milliseconds
        self.sequence = sequence
    }

    /// Parses `<ms>-<seq>`, or `<ms>` alone (sequence 0, as `XREAD` reads it); nil for anything else
    /// (signs, spaces, empty parts, numbers past 64 bits), so a client's resume position is checked.
    package init?(_ text: some StringProtocol) {
        let parts = Array(text.utf8).split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, let milliseconds = Self.number(parts[0]) else { return nil }
        var sequence: UInt64 = 0
        if parts.count == 2 {
            guard let value = Self.number(parts[1]) else { return nil }
            sequence = value
        }
        self.init(milliseconds: milliseconds, sequence: sequence)
    }

    /// `<ms>-<seq>`, the form Redis takes and returns.
    package var description: String { "\(milliseconds)-\(sequence)" }

    package static func < (lhs: StreamID, rhs: StreamID) -> Bool {
        (lhs.milliseconds, lhs.sequence) < (rhs.milliseconds, rhs.sequence)
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> UInt64? {
        guard !digits.isEmpty, digits.count <= 20, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var value: UInt64 = 0
        for digit in digits {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit - 0x30))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return value
    }
}

/// One entry read from a Redis Stream: its id and its field/value pairs in the order stored.
package struct StreamEntry: Equatable, Sendable {
    /// One field and its value, as bytes (streams are binary-safe).
    package struct Field: Equatable, Sendable {
        package var name: [UInt8]
        package var value: [UInt8]

        /// Pairs `name` with `value`.
        package init(name: [UInt8], value: [UInt8]) {
            self.name = name
            self.value = value
        }
    }

    /// The entry's id; `id.description` is the text form Redis uses.
    package var id: StreamID
    /// The entry's fields.
    package var fields: [Field]

    /// An entry with `id` and `fields`.
    package init(id: StreamID, fields: [Field]) {
        self.id = id
        self.fields = fields
    }

    /// The value of the first field named `name`.
    package func value(of name: String) -> [UInt8]? {
        let bytes = Array(name.utf8)
        return fields.first { $0.name == bytes }?.value
    }
}
