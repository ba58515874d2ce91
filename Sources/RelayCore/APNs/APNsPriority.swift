/// An `apns-priority` value.
///
/// APNs accepts exactly `10` (deliver now; counts toward the Live Activity budget), `5`
/// (power-aware; does not count) and `1` (prioritize device power, never wake it). An omitted
/// header means `10`. Open so that the push log can carry what was sent.
package struct APNsPriority: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The numeric priority.
    package let rawValue: Int

    /// Wraps any number; use `init?(header:)` to read a header with APNs' rules.
    package init(rawValue: Int) { self.rawValue = rawValue }

    /// `10`: send immediately.
    package static let immediate = APNsPriority(rawValue: 10)
    /// `5`: send with the device's power in mind.
    package static let powerConsiderate = APNsPriority(rawValue: 5)
    /// `1`: prioritize the device's power; do not wake it.
    package static let low = APNsPriority(rawValue: 1)

    /// What APNs assumes when `apns-priority` is omitted.
    package static let `default` = APNsPriority.immediate

    /// Reads a header value: exactly `10`, `5` or `1`; anything else (signs, spaces, leading
    /// zeros, other numbers) is nil, which the rules report as `BadPriority`.
    package init?(header value: String) {
        switch value {
        case "10": self = .immediate
        case "5": self = .powerConsiderate
        case "1": self = .low
        default: return nil
        }
    }

    package var description: String { String(rawValue) }

    package static func < (lhs: APNsPriority, rhs: APNsPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}
