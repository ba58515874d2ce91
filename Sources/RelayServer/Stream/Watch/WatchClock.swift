package import RelayCore
package import RelayJSON

/// The relay's clock as a watcher estimates it: the relay time seen at a local instant, and how
/// fast it runs (a virtual clock may stand still or run at any rate). Pure: times are arguments.
package struct WatchClock: Sendable, Equatable {
    /// Relay time at `localAnchor`.
    package private(set) var relayAnchor: UnixSeconds
    /// Local wall-clock seconds when `relayAnchor` was read.
    package private(set) var localAnchor: Double
    /// Relay seconds per local second.
    package private(set) var rate: Double
    /// `system` or `virtual`, as the relay said (nil until it said).
    package private(set) var mode: String?

    /// A clock reading `relayNow` at `localNow`, running at `rate`.
    package init(relayNow: UnixSeconds, localNow: Double, rate: Double = 1, mode: String? = nil) {
        relayAnchor = relayNow
        localAnchor = localNow
        self.rate = rate
        self.mode = mode
    }

    /// The relay's time at local time `local`.
    package func now(local: Double) -> UnixSeconds { relayAnchor + (local - localAnchor) * rate }

    /// Takes the relay's clock JSON (`{"now", "mode", "rate"}`) seen at `local`. Unless `force`d,
    /// a reading older than the current estimate is ignored: it is a replayed `clock` event, and
    /// the relay's clock never goes back.
    package mutating func observe(_ clock: JSONValue, at local: Double, force: Bool) {
        guard let relayNow = clock["now"]?.doubleValue, relayNow.isFinite else { return }
        let newRate = clock["rate"]?.doubleValue ?? rate
        guard force || relayNow >= now(local: local) - 0.5 else { return }
        relayAnchor = relayNow
        localAnchor = local
        rate = newRate.isFinite && newRate >= 0 ? newRate : rate
        mode = clock["mode"]?.stringValue ?? mode
    }
}
