#if canImport(Glibc)
import Glibc
#endif
public import RelayCore

/// The machine's real-time clock.
public struct SystemClock: RelayClock {
    public init() {}

    public func now() -> UnixSeconds {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1_000_000_000
    }
}
