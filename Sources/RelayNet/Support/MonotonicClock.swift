import Glibc

/// Reads CLOCK_MONOTONIC, the clock timers are measured against (never jumps with wall-clock changes).
package enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point.
    package static func nanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
