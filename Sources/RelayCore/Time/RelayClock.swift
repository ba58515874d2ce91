/// Unix time in seconds, as APNs payloads carry it. Fractions are allowed.
public typealias UnixSeconds = Double

/// Where the relay's sense of "now" comes from: the system clock or a virtual one.
///
/// Nothing in RelayCore reads a clock; the shells ask a `RelayClock` and pass the time in.
public protocol RelayClock: Sendable {
    /// The current time on this clock.
    func now() -> UnixSeconds
}
