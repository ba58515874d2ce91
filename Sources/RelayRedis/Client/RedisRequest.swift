/// A caller's command on its way through the cluster: where it goes next, how often it was
/// redirected, and the deadline it must be answered by. Loop-confined.
final class RedisRequest {
    let command: RedisCommand
    let slot: Int?
    /// Monotonic nanoseconds after which the request fails with `timedOut`.
    let deadline: Int64
    /// A redirect's target, overriding the slot table for the next send.
    var target: String?
    /// The next send must be preceded by `ASKING` (an `ASK` redirect).
    var asking = false
    var redirects = 0
    var completion: ((Result<RESPValue, RedisError>) -> Void)?
    /// Set by the client: where replies are judged (redirects, retries) before reaching `completion`.
    var onReply: ((RedisRequest, Result<RESPValue, RedisError>, RedisConnection) -> Void)?

    init(command: RedisCommand, deadline: Int64, completion: @escaping (Result<RESPValue, RedisError>) -> Void) {
        self.command = command
        slot = command.key.map { HashSlot.slot(of: $0) }
        self.deadline = deadline
        self.completion = completion
    }

    func deliver(_ result: Result<RESPValue, RedisError>, from connection: RedisConnection) {
        onReply?(self, result, connection)
    }

    /// Answers the caller exactly once.
    func finish(_ result: Result<RESPValue, RedisError>) {
        let completion = self.completion
        self.completion = nil
        completion?(result)
    }
}
