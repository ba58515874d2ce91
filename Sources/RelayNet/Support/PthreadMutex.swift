import Glibc

/// `Synchronization.Mutex`'s `withLock` over a pthread mutex, which ThreadSanitizer intercepts.
///
/// On Linux the standard library's `Mutex` locks with futex calls inside the uninstrumented
/// runtime, so ThreadSanitizer sees no ordering between two threads' critical sections and reports
/// every access a `Mutex` guards as a race. `bench/sanitizers.sh` builds with `-DRELAY_TSAN_LOCKS`,
/// under which the modules that use `Mutex` declare `typealias Mutex = PthreadMutex`, shadowing the
/// imported type, so that the races it reports are real ones. Normal builds use the standard
/// library's `Mutex` and never this.
///
/// Sendable because `value` is only touched under `mutex`.
package final class PthreadMutex<Value: ~Copyable>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    /// A mutex guarding `value`.
    package init(_ value: consuming Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` on the guarded value while holding the mutex.
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
