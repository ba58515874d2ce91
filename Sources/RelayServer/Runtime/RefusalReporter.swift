import Glibc
import RelayNet
import Synchronization

/// Logs connections the listener refused (at `maxConnections` or `maxConnectionsPerAddress`): at
/// most one line per `interval` seconds, carrying how many were refused since the previous line and
/// the latest peer, so that a flood of refusals does not become a flood of log lines.
final class RefusalReporter: Sendable {
    /// Seconds between two lines at most.
    let interval: Double
    private let state = Mutex<(lastLine: Double, unreported: Int)>((-Double.infinity, 0))

    init(interval: Double = 10) { self.interval = interval }

    /// Counts one refusal at `now` (seconds on any monotonic clock); returns how many refusals the
    /// line to write now should report, or nil when this one waits for a later line.
    func record(now: Double) -> Int? {
        state.withLock { state in
            state.unreported += 1
            guard now - state.lastLine >= interval else { return nil }
            defer { state = (now, 0) }
            return state.unreported
        }
    }

    /// Counts a refusal and writes the line when one is due.
    func report(_ reason: ConnectionRefusal, peer: String, total: UInt64) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        guard let count = record(now: Double(now.tv_sec) + Double(now.tv_nsec) / 1e9) else { return }
        RelayLog.warning(
            "conn.refused",
            ["reason": reason.rawValue, "peer": peer, "count": String(count), "total": String(total)])
    }
}
