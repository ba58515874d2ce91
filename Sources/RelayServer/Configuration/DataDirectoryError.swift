/// Why the data directory cannot be used: the path at fault and what is wrong, on one line.
/// `serve` and `token` print it and exit with status 2.
package struct DataDirectoryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The directory or file at fault.
    package var path: String
    /// What is wrong, and how to fix it when there is an obvious fix.
    package var message: String

    /// An error about `path`.
    package init(_ path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    /// `path: message`, one line.
    package var description: String { ConfigurationError.oneLine("\(path): \(message)") }
}
