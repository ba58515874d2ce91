/// Why `RelayRuntime.start` could not start, with the part at fault: the stored state (a row
/// it cannot read names its table and key) or the listen address. `serve` prints it on one line.
package enum RelayStartError: Error, Sendable, CustomStringConvertible {
    /// A row of the database at `path` cannot be read back: `table`, the row's `key`, and why.
    case unreadableRow(path: String, table: String, key: String, message: String)
    /// The database at `path` cannot be opened or restored.
    case store(path: String, message: String)
    /// The listener cannot be bound to `host:port`.
    case listen(host: String, port: UInt16, message: String)

    package var description: String {
        switch self {
        case .unreadableRow(let path, let table, let key, let message):
            ConfigurationError.oneLine(
                "\(path): cannot read table \(table), row \(key): \(message); the listen address is not at fault")
        case .store(let path, let message): ConfigurationError.oneLine("\(path): \(message)")
        case .listen(let host, let port, let message):
            ConfigurationError.oneLine("cannot listen on \(host):\(port): \(message)")
        }
    }
}
