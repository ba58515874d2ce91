/// Why a header block could not be decoded (RFC 7541), with the offending value and where it sits.
///
/// Every reason except `headerListTooLarge` means the decoder's dynamic table may no longer match the
/// peer's, so HTTP/2 must answer with a connection error of type COMPRESSION_ERROR. `headerListTooLarge`
/// is raised only after the whole block was processed, so the table is still in sync and HTTP/2 can
/// refuse just the stream (431 or RST_STREAM) and keep the connection.
public struct HPACKError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A static, human-readable reason. Open so that callers can match on it and print it.
    package struct Reason: RawRepresentable, Hashable, Sendable {
        package let rawValue: String

        package init(rawValue: String) { self.rawValue = rawValue }

        /// The block ends in the middle of a representation, an integer or a string.
        package static let truncated = Reason(rawValue: "header block ends inside a representation")
        /// A prefix integer is larger than 2^32 - 1 or uses more continuation octets than that needs.
        package static let integerOverflow = Reason(rawValue: "integer exceeds 32 bits")
        /// An index is 0 or beyond the static and dynamic tables.
        package static let invalidIndex = Reason(rawValue: "index refers to no table entry")
        /// A Huffman-coded string contains the EOS symbol.
        package static let huffmanEOS = Reason(rawValue: "Huffman string contains EOS")
        /// A Huffman-coded string ends with more than 7 bits of padding.
        package static let huffmanPaddingTooLong = Reason(rawValue: "Huffman padding longer than 7 bits")
        /// A Huffman-coded string ends with padding that is not a prefix of EOS (not all ones).
        package static let huffmanPaddingNotOnes = Reason(rawValue: "Huffman padding is not all ones")
        /// A dynamic table size update asks for more than the size we allow.
        package static let tableSizeUpdateTooLarge = Reason(rawValue: "table size update above the allowed maximum")
        /// A dynamic table size update follows a header field in the same block.
        package static let tableSizeUpdateNotAtStart = Reason(rawValue: "table size update after a header field")
        /// We lowered the allowed table size and the block did not start with a size update.
        package static let tableSizeUpdateMissing = Reason(rawValue: "expected a table size update at block start")
        /// The decoded header list (sum of name + value + 32 per field) exceeds the limit.
        package static let headerListTooLarge = Reason(rawValue: "header list larger than the limit")
    }

    /// What went wrong.
    package let reason: Reason
    /// The offending value: an index, a length, a size, or the running header list size.
    package let value: Int
    /// The offset in the header block of the representation (or string) that failed.
    package let offset: Int

    /// An error for `reason` about `value` found at `offset` in the block.
    package init(_ reason: Reason, value: Int, offset: Int) {
        self.reason = reason
        self.value = value
        self.offset = offset
    }

    /// True when only the stream must be refused: the dynamic table is still in sync with the peer.
    package var isHeaderListTooLarge: Bool { reason == .headerListTooLarge }

    public var description: String { "HPACK: \(reason.rawValue) (value \(value) at offset \(offset))" }
}
