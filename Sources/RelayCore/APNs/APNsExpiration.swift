/// An `apns-expiration` value: a Unix time in whole seconds (UTC).
///
/// `0` means "try once, do not store"; a nonzero value means "store and retry until then"; an
/// omitted header leaves storage to APNs' policy. A time in the past is accepted (it simply does
/// not extend storage). Anything but 1 to 19 ASCII digits that fit in Int64 — a sign, a fraction,
/// spaces, milliseconds beyond Int64 — is `BadExpirationDate`.
public struct APNsExpiration: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since 1970, or 0 for "do not store".
    public let rawValue: Int64

    /// Wraps a number of seconds.
    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// Try once, do not store.
    public static let immediately = APNsExpiration(rawValue: 0)

    /// True for `0`.
    public var isImmediate: Bool { rawValue == 0 }

    /// The expiry as Unix seconds, nil for `0`.
    public var date: UnixSeconds? { rawValue == 0 ? nil : UnixSeconds(rawValue) }

    public var description: String { String(rawValue) }

    public static func < (lhs: APNsExpiration, rhs: APNsExpiration) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Reads a header value.
    public static func parse(_ value: String) -> Result<APNsExpiration, APNsError> {
        let utf8 = value.utf8
        guard !utf8.isEmpty, utf8.count <= 19, utf8.allSatisfy(APNsASCII.isDigit), let seconds = Int64(value) else {
            return .failure(
                APNsError(
                    .badExpirationDate,
                    "apns-expiration \(APNsASCII.quoted(value)) is not a Unix time in whole seconds (or 0)"))
        }
        return .success(APNsExpiration(rawValue: seconds))
    }
}
