public import RelayCore

#if canImport(Glibc)
    import Glibc
#endif

/// The machine's real-time clock, to the microsecond.
public struct SystemClock: RelayClock {
    public init() {}

    public func now() -> UnixSeconds {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        // To the microsecond, as the double nearest that decimal reading: such a time is written
        // in at most 16 digits (`1764619123.123457`) by the JSON writer's short path, where a
        // nanosecond sum needs 17 and the general algorithm.
        let micros = Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec / 1000)
        return Double(micros) / 1_000_000
    }
}
