/// An `apns-collapse-id` value: at most 64 bytes of UTF-8.
///
/// Apple documents only the size limit. The relay treats an empty header as an absent one.
/// Whether collapse IDs have any effect on Live Activity pushes is undocumented; the relay
/// records the value and does not merge pushes by it.
package struct APNsCollapseID: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The identifier as sent.
    package let rawValue: String

    /// Wraps a value without checking it.
    package init(rawValue: String) { self.rawValue = rawValue }

    package var description: String { rawValue }

    /// Longest identifier in bytes.
    package static let maxBytes = 64

    /// Checks a header value: nil for an empty value, `BadCollapseId` past 64 bytes.
    package static func parse(_ value: String) -> Result<APNsCollapseID?, APNsError> {
        let size = value.utf8.count
        guard size > 0 else { return .success(nil) }
        guard size <= maxBytes else {
            return .failure(
                APNsError(.badCollapseId, "apns-collapse-id is \(size) bytes; the limit is \(maxBytes)"))
        }
        return .success(APNsCollapseID(rawValue: value))
    }
}
