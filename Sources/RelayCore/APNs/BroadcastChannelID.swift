/// A broadcast channel ID (`apns-channel-id`): a random string APNs (here, the relay) issues on
/// channel creation. Apple's IDs are standard base64 and Apple says not to assume their size;
/// the relay issues 16 random bytes (24 characters) and reads 1 to 256 characters of strict
/// padded base64.
public struct BroadcastChannelID: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The ID as sent.
    public let rawValue: String

    /// Wraps a value without checking it; `parse(_:)` applies the rules.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A new ID from random bytes (the caller supplies the randomness).
    package init(randomBytes: [UInt8]) { rawValue = Base64Codec.encode(randomBytes) }

    /// Longest ID read.
    package static let maxLength = 256

    public var description: String { rawValue }

    public static func < (lhs: BroadcastChannelID, rhs: BroadcastChannelID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Reads an `apns-channel-id` header: absent is `MissingChannelId`, anything but 1 to 256
    /// characters of padded base64 is `BadChannelId`.
    package static func parse(_ value: String?) -> Result<BroadcastChannelID, APNsError> {
        guard let value else {
            return .failure(APNsError(.missingChannelId, "apns-channel-id is required"))
        }
        guard !value.isEmpty, value.utf8.count <= maxLength, let bytes = Base64Codec.decode(value), !bytes.isEmpty
        else {
            return .failure(
                APNsError(.badChannelId, "apns-channel-id \(APNsASCII.quoted(value)) is not a channel ID (base64)"))
        }
        return .success(BroadcastChannelID(rawValue: value))
    }
}
