import CRelayLinux
import Foundation
import RelayCore

/// Syncs the write-ahead log on a thread of its own (`store-fsync`) every `interval` in which
/// something was committed, for `StoreDurability.syncPeriodically`: commits are acknowledged once
/// written to the log, and reach the disk at most about `interval` later. An idle store's thread
/// sleeps until the next commit.
///
/// The writer calls `committed()` after each commit; `stop()` syncs what is left and ends the
/// thread. A failed sync cannot take back an acknowledgement: it is counted, reported to the
/// failure observer, and the next interval tries again.
final class PeriodicLogSync: @unchecked Sendable {  // mutable state is guarded by `condition`
    struct Statistics: Sendable, Equatable {
        var syncs = 0
        var failures = 0
    }

    let interval: Duration
    private let log: LogSync  // touched only by the thread, and by `stop` once it has ended
    private let condition = NSCondition()
    private var pending = false
    private var stopping = false
    private var stopped = false
    private var counts = Statistics()
    private var failureObserver: (@Sendable (StoreError) -> Void)?

    init(log: LogSync, interval: Duration) {
        self.log = log
        self.interval = max(interval, .milliseconds(1))
        let thread = Thread { [self] in run() }
        thread.start()
    }

    /// Something was committed: the next round syncs it.
    func committed() {
        condition.lock()
        if !pending {
            pending = true
            condition.signal()
        }
        condition.unlock()
    }

    /// Syncs whatever was committed since the last sync, then ends the thread; returns once it has.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !stopped { condition.wait() }
        condition.unlock()
    }

    var statistics: Statistics {
        condition.lock()
        defer { condition.unlock() }
        return counts
    }

    func setFailureObserver(_ observer: @escaping @Sendable (StoreError) -> Void) {
        condition.lock()
        failureObserver = observer
        condition.unlock()
    }

    private func run() {
        relay_set_thread_name("store-fsync")  // for top -H, /proc and debuggers
        let seconds = interval.inSeconds
        condition.lock()
        while true {
            while !pending && !stopping { condition.wait() }
            // The first commit since the last sync: the ones that follow within `interval` share
            // its sync.
            let deadline = Date(timeIntervalSinceNow: seconds)
            while !stopping && condition.wait(until: deadline) {}
            let last = stopping
            if pending {
                pending = false
                condition.unlock()
                let result = log.sync()
                condition.lock()
                switch result {
                case .success: counts.syncs += 1
                case .failure(let error):
                    counts.failures += 1
                    pending = true  // the next round tries again
                    let observer = failureObserver
                    condition.unlock()
                    observer?(error)
                    condition.lock()
                }
            }
            if last { break }
        }
        stopped = true
        condition.broadcast()
        condition.unlock()
    }
}
