import Foundation
public import RelayCore

/// A clock that moves only when a test moves it.
public final class ManualClock: RelayClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: UnixSeconds

    /// Starts at `start` (default: 2026-01-01T00:00:00Z).
    public init(start: UnixSeconds = 1_767_225_600) { current = start }

    public func now() -> UnixSeconds { lock.withLock { current } }

    /// Moves the clock forward by `seconds`.
    public func advance(by seconds: Double) { lock.withLock { current += seconds } }

    /// Sets the clock to `time`.
    public func set(_ time: UnixSeconds) { lock.withLock { current = time } }
}
