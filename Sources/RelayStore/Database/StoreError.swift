/// A failure inside the store, with SQLite's result code and message where there is one.
public struct StoreError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What the store was doing, e.g. `"open"` or `"prepare"`.
    package var operation: String
    /// SQLite's primary result code, or 0 when the failure is the store's own.
    package var code: Int32
    /// SQLite's message or the store's explanation.
    package var message: String

    package init(operation: String, code: Int32, message: String) {
        self.operation = operation
        self.code = code
        self.message = message
    }

    public var description: String { "store \(operation) failed (\(code)): \(message)" }
}
