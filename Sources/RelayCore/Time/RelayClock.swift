/// Unix time in seconds, as APNs payloads carry it. Fractions are allowed.
public typealias UnixSeconds = Double

/// Where the relay's sense of "now" comes from: the system clock or a virtual one.
///
/// Nothing in RelayCore reads a clock; the shells ask a `RelayClock` and pass the time in.
package protocol RelayClock: Sendable {
    /// The current time on this clock.
    func now() -> UnixSeconds
}

/// APNs timestamps (`aps.timestamp`, `stale-date`, `dismissal-date`) are whole seconds, while the
/// relay's own times carry fractions: the two meet at whole-second precision.
package enum WholeSeconds {
    /// Whether `time` falls in an earlier second than `other`; a time in the same second is not
    /// earlier (CONTRACT section 7: an equal timestamp applies).
    @inlinable
    package static func isEarlier(_ time: UnixSeconds, than other: UnixSeconds) -> Bool {
        time.rounded(.down) < other.rounded(.down)
    }
}
