/// Why a header block could not be decoded (RFC 7541), with the offending value and where it sits.
///
/// Every reason except `headerListTooLarge` means the decoder's dynamic table may no longer match the
/// peer's, so HTTP/2 must answer with a connection error of type COMPRESSION_ERROR. `headerListTooLarge`
/// is raised only after the whole block was processed, so the table is still in sync and HTTP/2 can
/// refuse just the stream (431 or RST_STREAM) and keep the connection.
public struct HPACKError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A static, human-readable reason. Open so that callers can match on it and print it.
    public struct Reason: RawRepresentable, Hashable, Sendable {
        public let rawValue: String

        public init(rawValue: String) { self.rawValue = rawValue }

        /// The block ends in the middle of a representation, an integer or a string.
        public static let truncated = Reason(rawValue: "header block ends inside a representation")
        /// A prefix integer is larger than 2^32 - 1 or uses more continuation octets than that needs.
        public static let integerOverflow = Reason(rawValue: "integer exceeds 32 bits")
        /// An index is 0 or beyond the static and dynamic tables.
        public static let invalidIndex = Reason(rawValue: "index refers to no table entry")
        /// A Huffman-coded string contains the EOS symbol.
        public static let huffmanEOS = Reason(rawValue: "Huffman string contains EOS")
        /// A Huffman-coded string ends with more than 7 bits of padding.
        public static let huffmanPaddingTooLong = Reason(rawValue: "Huffman padding longer than 7 bits")
        /// A Huffman-coded string ends with padding that is not a prefix of EOS (not all ones).
        public static let huffmanPaddingNotOnes = Reason(rawValue: "Huffman padding is not all ones")
        /// A dynamic table size update asks for more than the size we allow.
        public static let tableSizeUpdateTooLarge = Reason(rawValue: "table size update above the allowed maximum")
        /// A dynamic table size update follows a header field in the same block.
        public static let tableSizeUpdateNotAtStart = Reason(rawValue: "table size update after a header field")
        /// We lowered the allowed table size and the block did not start with a size update.
        public static let tableSizeUpdateMissing = Reason(rawValue: "expected a table size update at block start")
        /// The decoded header list (sum of name + value + 32 per field) exceeds the limit.
        public static let headerListTooLarge = Reason(rawValue: "header list larger than the limit")
    }

    /// What went wrong.
    public let reason: Reason
    /// The offending value: an index, a length, a size, or the running header list size.
    public let value: Int
    /// The offset in the header block of the representation (or string) that failed.
    public let offset: Int

    /// An error for `reason` about `value` found at `offset` in the block.
    public init(_ reason: Reason, value: Int, offset: Int) {
        self.reason = reason
        self.value = value
        self.offset = offset
    }

    /// True when only the stream must be refused: the dynamic table is still in sync with the peer.
    public var isHeaderListTooLarge: Bool { reason == .headerListTooLarge }

    public var description: String { "HPACK: \(reason.rawValue) (value \(value) at offset \(offset))" }
}
