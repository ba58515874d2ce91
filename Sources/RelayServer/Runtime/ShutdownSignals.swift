import RelayNet

/// SIGTERM and SIGINT, delivered to a closure on a loop of their own (`relay-signals`) instead of
/// killing the process mid-commit. Create it on the main thread before anything else starts a
/// thread: threads inherit the blocked signals.
package final class ShutdownSignals: Sendable {
    private let watcher: SignalWatcher

    /// Starts watching; `onSignal(number)` runs on the signal loop for each arrival.
    package init(onSignal: @escaping @Sendable (Int32) -> Void) throws {
        watcher = try SignalWatcher(loop: try EventLoop(name: "relay-signals"), onSignal: onSignal)
    }

    /// Stops watching (the signals stay blocked).
    package func stop() { watcher.stop() }
}
