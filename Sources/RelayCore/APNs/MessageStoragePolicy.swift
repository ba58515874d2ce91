package import RelayJSON

/// A channel's `message-storage-policy`, fixed when the channel is created.
///
/// `0` stores nothing (a higher publishing budget; e.g. sports scores) and rejects a nonzero
/// `apns-expiration`; `1` keeps the most recent message for up to 8 hours and hands it to
/// activities that join later (e.g. flights). Open so that other numbers round-trip into logs;
/// only 0 and 1 are accepted on creation.
public struct MessageStoragePolicy: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The number on the wire.
    public let rawValue: Int

    /// Wraps any number.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `0`: no message stored.
    package static let noMessageStored = MessageStoragePolicy(rawValue: 0)
    /// `1`: the most recent message is stored.
    public static let mostRecentMessageStored = MessageStoragePolicy(rawValue: 1)

    /// How long policy 1 keeps the latest message: 8 hours.
    package static let maxStorageSeconds: Double = 8 * 3600

    /// True for 0 and 1.
    package var isKnown: Bool { self == .noMessageStored || self == .mostRecentMessageStored }

    /// The policy a channel is created with, from its JSON number: nil unless it is 0 or 1
    /// (`1.0` counts as 1).
    package init?(creating value: JSONValue) {
        guard let number = value.int64Value, number == 0 || number == 1 else { return nil }
        self.init(rawValue: Int(number))
    }

    public var description: String { String(rawValue) }
}
