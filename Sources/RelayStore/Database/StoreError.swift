/// A failure inside the store, with SQLite's result code and message where there is one.
public struct StoreError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What the store was doing, e.g. `"open"` or `"prepare"`.
    public var operation: String
    /// SQLite's primary result code, or 0 when the failure is the store's own.
    public var code: Int32
    /// SQLite's message or the store's explanation.
    public var message: String

    public init(operation: String, code: Int32, message: String) {
        self.operation = operation
        self.code = code
        self.message = message
    }

    public var description: String { "store \(operation) failed (\(code)): \(message)" }
}
