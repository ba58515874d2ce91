import Dispatch

/// One answer handed from the loop to a thread blocked in `RedisClusterClient.call`.
final class ResultBox: @unchecked Sendable {  // Sendable: `result` is written once before `ready` signals.
    private var result: Result<RESPValue, RedisError>?
    private let ready = DispatchSemaphore(value: 0)

    func set(_ value: Result<RESPValue, RedisError>) {
        guard result == nil else { return }
        result = value
        ready.signal()
    }

    /// Waits for the answer (the client's own deadline bounds the wait).
    func wait() -> Result<RESPValue, RedisError> {
        ready.wait()
        return result ?? .failure(.shutDown)
    }
}
