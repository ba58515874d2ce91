import Glibc

extension EventLoop {
    /// Runs `work` on the loop and blocks the calling thread until it returns its result or error.
    /// Runs inline when already on the loop. Fails with `ECANCELED` if the loop stopped before running it.
    /// For setup paths (binding listeners, installing watchers), never for per-request work.
    @discardableResult
    package func submitAndWait<T: Sendable>(_ work: @escaping @Sendable () throws -> T) throws -> T {
        if inLoop { return try work() }
        let slot = ResultSlot<T>()
        execute { slot.fulfil(Result { try work() }) }
        guard let result = slot.wait(until: { !self.isAcceptingWork }) else {
            throw SystemError(call: "EventLoop.submitAndWait", errno: ECANCELED)
        }
        return try result.get()
    }
}

/// A one-shot result handed from a loop to a waiting thread.
private final class ResultSlot<T: Sendable>: @unchecked Sendable {  // Sendable: `result` is only touched under `lock`.
    private let lock = Lock()
    private var result: Result<T, any Error>?

    func fulfil(_ value: Result<T, any Error>) {
        lock.withLockBroadcasting { result = value }
    }

    /// Waits for the result, polling `abandoned` every 50 ms so a stopped loop cannot strand the caller.
    func wait(until abandoned: () -> Bool) -> Result<T, any Error>? {
        while true {
            if lock.wait(until: { result != nil }, timeout: 0.05) { return lock.withLock { result } }
            if abandoned() { return lock.withLock { result } }
        }
    }
}
