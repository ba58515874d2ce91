/// Why the data directory cannot be used: the path at fault and what is wrong, on one line.
/// `serve` and `token` print it and exit with status 2.
public struct DataDirectoryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The directory or file at fault.
    public var path: String
    /// What is wrong, and how to fix it when there is an obvious fix.
    public var message: String

    /// An error about `path`.
    public init(_ path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    /// `path: message`, one line.
    public var description: String { ConfigurationError.oneLine("\(path): \(message)") }
}
