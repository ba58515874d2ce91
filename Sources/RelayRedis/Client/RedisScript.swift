/// A Lua script and its SHA-1, the name `EVALSHA` knows it by.
public struct RedisScript: Sendable, Equatable {
    /// The Lua source.
    public let source: String
    /// Lower-case hex SHA-1 of the source.
    public let sha1: String

    /// Wraps `source`, computing its SHA-1.
    public init(_ source: String) {
        self.source = source
        sha1 = SHA1.hex(Array(source.utf8))
    }
}
