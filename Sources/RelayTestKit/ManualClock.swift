import Foundation
package import RelayCore

/// A clock that moves only when a test moves it.
package final class ManualClock: RelayClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: UnixSeconds

    /// Starts at `start` (default: 2026-01-01T00:00:00Z).
    package init(start: UnixSeconds = 1_767_225_600) { current = start }

    package func now() -> UnixSeconds { lock.withLock { current } }

    /// Moves the clock forward by `seconds`.
    package func advance(by seconds: Double) { lock.withLock { current += seconds } }

    /// Sets the clock to `time`.
    package func set(_ time: UnixSeconds) { lock.withLock { current = time } }
}
