/// An `apns-expiration` value: a Unix time in whole seconds (UTC).
///
/// `0` means "try once, do not store"; a nonzero value means "store and retry until then"; an
/// omitted header leaves storage to APNs' policy. A time in the past is accepted (it simply does
/// not extend storage). Anything but 1 to 19 ASCII digits that fit in Int64 — a sign, a fraction,
/// spaces, milliseconds beyond Int64 — is `BadExpirationDate`.
package struct APNsExpiration: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since 1970, or 0 for "do not store".
    package let rawValue: Int64

    /// Wraps a number of seconds.
    package init(rawValue: Int64) { self.rawValue = rawValue }

    /// Try once, do not store.
    package static let immediately = APNsExpiration(rawValue: 0)

    /// True for `0`.
    package var isImmediate: Bool { rawValue == 0 }

    /// The expiry as Unix seconds, nil for `0`.
    package var date: UnixSeconds? { rawValue == 0 ? nil : UnixSeconds(rawValue) }

    package var description: String { String(rawValue) }

    package static func < (lhs: APNsExpiration, rhs: APNsExpiration) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Reads a header value.
    package static func parse(_ value: String) -> Result<APNsExpiration, APNsError> {
        // Digits read from the bytes in one pass; 19 digits past Int64.max are refused, as before.
        let seconds: Int64? = APNsASCII.withBytes(value) { bytes in
            guard !bytes.isEmpty, bytes.count <= 19 else { return nil }
            var total: Int64 = 0
            for byte in bytes {
                guard APNsASCII.isDigit(byte) else { return nil }
                let (scaled, overflow) = total.multipliedReportingOverflow(by: 10)
                let (sum, carry) = scaled.addingReportingOverflow(Int64(byte &- UInt8(ascii: "0")))
                guard !overflow, !carry else { return nil }
                total = sum
            }
            return total
        }
        guard let seconds else {
            return .failure(
                APNsError(
                    .badExpirationDate,
                    "apns-expiration \(APNsASCII.quoted(value)) is not a Unix time in whole seconds (or 0)"))
        }
        return .success(APNsExpiration(rawValue: seconds))
    }
}
