/// Why a change to the virtual clock was refused. The clock is unchanged after any of these.
package enum ClockError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A `set` to a time before the clock's current time: the clock never moves backwards.
    case backwards(now: UnixSeconds, requested: UnixSeconds)
    /// An `advance` by a negative or non-finite number of seconds.
    case invalidAdvance(seconds: Double)
    /// A rate that is negative or not finite.
    case invalidRate(Double)
    /// A target time that is not finite or lies past `VirtualClock.latestTime`.
    case outOfRange(requested: UnixSeconds)

    /// One line for logs and API error messages.
    package var description: String {
        switch self {
        case .backwards(let now, let requested):
            return "the clock cannot move backwards: requested \(requested) is before now (\(now))"
        case .invalidAdvance(let seconds):
            return "cannot advance the clock by \(seconds) seconds: the amount must be finite and not negative"
        case .invalidRate(let rate):
            return "invalid clock rate \(rate): the rate must be finite and not negative"
        case .outOfRange(let requested):
            return "clock time \(requested) is out of range: it must be finite and at most \(VirtualClock.latestTime)"
        }
    }
}
