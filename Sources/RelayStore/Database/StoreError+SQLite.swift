import CSQLite

extension StoreError {
    /// An error from SQLite's result code `rc` on `connection`, with its message and, when given,
    /// the statement that failed.
    init(sqlite rc: Int32, connection: OpaquePointer?, operation: String, sql: String? = nil) {
        var message: String
        if let connection, let text = sqlite3_errmsg(connection) {
            message = String(cString: text)
        } else {
            message = String(cString: sqlite3_errstr(rc))
        }
        if let sql { message += " [\(sql.prefix(200))]" }
        self.init(operation: operation, code: rc & 0xFF, message: message)
    }

    /// The store's own failure, with no SQLite code.
    static func store(_ operation: String, _ message: String) -> StoreError {
        StoreError(operation: operation, code: 0, message: message)
    }
}
