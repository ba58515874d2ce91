/// One command to send: its arguments, the key that picks its hash slot, and whether sending it
/// twice is harmless.
package struct RedisCommand: Sendable {
    /// The command and its arguments, e.g. `SET`, key, value.
    package var arguments: [[UInt8]]
    /// The key whose slot routes the command; nil sends it to any node (`PING`, `CLUSTER ...`).
    package var key: [UInt8]?
    /// True when running the command twice has the effect of running it once (reads, `SET` of a
    /// fixed value). Only such commands are sent again after a connection breaks with the command
    /// already written; others fail with `RedisError.connectionLost`.
    package var idempotent: Bool

    /// A command from byte arguments.
    package init(arguments: [[UInt8]], key: [UInt8]?, idempotent: Bool = false) {
        self.arguments = arguments
        self.key = key
        self.idempotent = idempotent
    }

    /// A command from text arguments; `keyIndex` names the argument routing it (1 for most commands).
    package init(_ arguments: [String], keyIndex: Int? = 1, idempotent: Bool = false) {
        self.arguments = arguments.map { Array($0.utf8) }
        key = keyIndex.flatMap { $0 < arguments.count ? Array(arguments[$0].utf8) : nil }
        self.idempotent = idempotent
    }
}
