/// A Lua script and its SHA-1, the name `EVALSHA` knows it by.
package struct RedisScript: Sendable, Equatable {
    /// The Lua source.
    package let source: String
    /// Lower-case hex SHA-1 of the source.
    package let sha1: String

    /// Wraps `source`, computing its SHA-1.
    package init(_ source: String) {
        self.source = source
        sha1 = SHA1.hex(Array(source.utf8))
    }
}
