import Glibc

/// A pthread mutex with a condition variable: the one primitive RelayNet uses to cross threads.
///
/// Every loop-confined type reaches another thread only through `EventLoop.execute`, whose queue is
/// guarded by one of these; latches and counters that callers block on use the condition.
final class Lock: @unchecked Sendable {  // Sendable: all access goes through the mutex it owns.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    /// Creates an unlocked mutex and its condition variable.
    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` while holding the mutex.
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Blocks until `ready()` holds (evaluated under the mutex), waking on `broadcast()`.
    func wait(until ready: () -> Bool) {
        pthread_mutex_lock(mutex)
        while !ready() { pthread_cond_wait(condition, mutex) }
        pthread_mutex_unlock(mutex)
    }

    /// Like `wait(until:)` but gives up after `seconds`; returns whether `ready()` held.
    func wait(until ready: () -> Bool, timeout seconds: Double) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let nanos = Int(deadline.tv_nsec) + Int(max(0, seconds) * 1e9)
        deadline.tv_sec += nanos / 1_000_000_000
        deadline.tv_nsec = nanos % 1_000_000_000
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !ready() {
            if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { return ready() }
        }
        return true
    }

    /// Runs `body` under the mutex, then wakes every waiter.
    func withLockBroadcasting<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        return try body()
    }
}
