/// A canonical UUID as APNs uses for `apns-id` (device pushes) and `apns-request-id` (broadcast
/// and channel management): 32 hex digits in groups of 8-4-4-4-12.
///
/// Apple documents the lowercase form. The relay also accepts uppercase digits — Swift's
/// `UUID().uuidString` is uppercase and many backends send it unchanged — and echoes the value
/// exactly as received, since APNs answers with "the same value" it was sent. An uppercase value
/// earns a hint. Anything else (braces, no hyphens, wrong group sizes) is `BadMessageId`.
package struct APNsMessageID: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The identifier as sent (or generated).
    package let rawValue: String

    /// Wraps a value without checking it; `parse(_:header:)` applies the rules.
    package init(rawValue: String) { self.rawValue = rawValue }

    package var description: String { rawValue }

    /// True when every hex letter is lowercase, as Apple documents.
    package var isCanonicalLowercase: Bool {
        APNsASCII.withBytes(rawValue) { bytes in
            Self.byteClasses.withUnsafeBufferPointer { classes in
                var seen: UInt8 = 0
                for byte in bytes { seen |= classes[Int(byte)] }
                return seen & ByteClass.uppercaseHexLetter == 0
            }
        }
    }

    /// The bits of `byteClasses`: a lowercase hex digit has none.
    private enum ByteClass {
        static let notHexDigit: UInt8 = 1
        static let uppercaseHexLetter: UInt8 = 2
    }

    /// Every byte's `ByteClass`: one load a byte, where tests of ranges took a few branches.
    private static let byteClasses: [UInt8] = (0...255).map { (value: Int) -> UInt8 in
        let byte = UInt8(value)
        if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "F") { return ByteClass.uppercaseHexLetter }
        return APNsASCII.isHexDigit(byte) ? 0 : ByteClass.notHexDigit
    }

    /// A lowercase UUID from 16 random bytes (the caller supplies the randomness), with the
    /// version-4 and variant bits set. Missing bytes count as zero; bytes past 16 are ignored.
    package init(randomBytes: [UInt8]) {
        var bytes = randomBytes
        if bytes.count < 16 { bytes += [UInt8](repeating: 0, count: 16 - bytes.count) }
        rawValue = bytes.withUnsafeBufferPointer { Hex.uuid($0) }
    }

    /// Checks a header value; `header` names the header in the error message.
    package static func parse(_ value: String, header: String = "apns-id") -> Result<APNsMessageID, APNsError> {
        guard isCanonicalForm(value) else {
            return .failure(
                APNsError(
                    .badMessageId,
                    "\(header) \(APNsASCII.quoted(value)) is not a UUID in the 8-4-4-4-12 form, "
                        + "e.g. 123e4567-e89b-12d3-a456-4266554400a0"))
        }
        return .success(APNsMessageID(rawValue: value))
    }

    /// 36 bytes: hex digits with hyphens at offsets 8, 13, 18 and 23.
    static func isCanonicalForm(_ value: String) -> Bool {
        guard value.utf8.count == 36 else { return false }
        return APNsASCII.withBytes(value) { bytes in
            let hyphen = UInt8(ascii: "-")
            guard bytes[8] == hyphen, bytes[13] == hyphen, bytes[18] == hyphen, bytes[23] == hyphen else {
                return false
            }
            // With those four hyphens in place, every other byte is a hex digit exactly when the
            // four are the only bytes that are not.
            var others = 0
            byteClasses.withUnsafeBufferPointer { classes in
                for byte in bytes { others &+= Int(classes[Int(byte)] & ByteClass.notHexDigit) }
            }
            return others == 4
        }
    }
}
