public import RelayCore
package import RelayJSON
import Synchronization

/// The relay's clock: the system clock, or a virtual clock that stands still until moved
/// (`POST /v1/clock`), advances at a chosen rate, never goes backwards and survives restarts.
public final class RelayTimeSource: RelayClock, Sendable {
    /// `system` or `virtual`.
    public enum Mode: String, Sendable {
        case system, virtual
    }

    package let mode: Mode
    private let real: SystemClock
    fileprivate let virtualClock: Mutex<VirtualClock>

    /// A system clock.
    package init() {
        mode = .system
        real = SystemClock()
        virtualClock = Mutex(VirtualClock(startingAt: 0))
    }

    /// A virtual clock in the state `clock`.
    package init(virtual clock: VirtualClock) {
        mode = .virtual
        real = SystemClock()
        virtualClock = Mutex(clock)
    }

    package func now() -> UnixSeconds {
        switch mode {
        case .system: return real.now()
        case .virtual: return virtualClock.withLock { $0.now(real: real.now()) }
        }
    }

    /// The real time, whatever the mode (provider-token ages and churn follow it).
    package func realNow() -> UnixSeconds { real.now() }

    /// How far a virtual clock is ahead of real time (negative: behind); nil on the system clock.
    package var virtualOffset: UnixSeconds? {
        guard mode == .virtual else { return nil }
        let real = real.now()
        return virtualClock.withLock { $0.now(real: real) } - real
    }

    /// Seconds of relay time per real second.
    package var rate: Double {
        switch mode {
        case .system: return 1
        case .virtual: return virtualClock.withLock { $0.rate }
        }
    }

    /// The virtual clock's state, for persisting.
    package var virtualState: VirtualClock { virtualClock.withLock { $0 } }

    /// Changes the virtual clock with `change`; the new state is returned for persisting.
    package func change(_ change: (inout VirtualClock, UnixSeconds) throws(ClockError) -> Void) throws(ClockError)
        -> VirtualClock
    {
        let realNow = real.now()
        return try virtualClock.withLock { (clock: inout VirtualClock) throws(ClockError) -> VirtualClock in
            var copy = clock
            try change(&copy, realNow)
            clock = copy
            return copy
        }
    }

    /// `{"now", "mode", "rate"}`.
    package var json: JSONValue {
        ["now": .number(now()), "mode": .string(mode.rawValue), "rate": .number(rate)]
    }
}

extension RelayTimeSource {
    /// Takes `state` as the virtual clock (cluster mode: the clock every node shares, read from
    /// Redis). Ignored on the system clock.
    func adopt(_ state: VirtualClock) {
        guard mode == .virtual else { return }
        virtualClock.withLock { $0 = state }
    }
}
