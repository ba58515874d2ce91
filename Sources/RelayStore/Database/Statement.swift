import CSQLite

/// A prepared SQL statement with typed binding and column access.
///
/// Statements belong to their `Database` and are used only inside `Database.withStatement`,
/// which resets them afterwards, so a statement never holds a read transaction open. Parameter
/// and column indexes are 1-based for `bind` (as in SQL's `?1`) and 0-based for columns, as in
/// SQLite's C API.
package final class Statement {
    let handle: OpaquePointer
    /// The connection, for error messages; `sqlite3_close_v2` keeps it alive while we exist.
    private let connection: OpaquePointer
    /// The SQL text, for error messages.
    package let sql: String
    var inUse = false

    init(handle: OpaquePointer, sql: String, connection: OpaquePointer) {
        self.handle = handle
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    // MARK: - Binding

    /// Binds an integer to parameter `index` (1-based).
    package func bind(_ value: Int64, at index: Int32) throws(StoreError) {
        try check(sqlite3_bind_int64(handle, index, value), "bind")
    }

    /// Binds a double to parameter `index` (1-based).
    package func bind(_ value: Double, at index: Int32) throws(StoreError) {
        try check(sqlite3_bind_double(handle, index, value), "bind")
    }

    /// Binds UTF-8 text, or NULL when `value` is nil, to parameter `index` (1-based).
    package func bind(_ value: String?, at index: Int32) throws(StoreError) {
        guard var text = value else { return try bindNull(at: index) }
        let rc = text.withUTF8 { utf8 -> Int32 in
            guard utf8.count <= Int(Int32.max) else { return SQLITE_TOOBIG }
            // An empty buffer may have no base address, and a NULL pointer would bind SQL NULL.
            guard let base = utf8.baseAddress, utf8.count > 0 else {
                return relay_sqlite3_bind_text_transient(handle, index, "", 0)
            }
            return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                relay_sqlite3_bind_text_transient(handle, index, $0, Int32(utf8.count))
            }
        }
        try check(rc, "bind")
    }

    /// Binds a blob, or NULL when `value` is nil, to parameter `index` (1-based).
    package func bind(_ value: [UInt8]?, at index: Int32) throws(StoreError) {
        guard let bytes = value else { return try bindNull(at: index) }
        let rc = bytes.withUnsafeBytes { raw -> Int32 in
            guard raw.count <= Int(Int32.max) else { return SQLITE_TOOBIG }
            // A NULL pointer would bind SQL NULL; an empty blob must stay an empty blob.
            guard let base = raw.baseAddress, raw.count > 0 else {
                return sqlite3_bind_zeroblob(handle, index, 0)
            }
            return relay_sqlite3_bind_blob_transient(handle, index, base, Int32(raw.count))
        }
        try check(rc, "bind")
    }

    /// Binds `bytes` as a blob to parameter `index` (1-based) without copying them (`SQLITE_STATIC`):
    /// the memory must stay valid and unchanged until the statement is reset, so bind inside
    /// `withUnsafeBytes` and step and reset there too. Saves SQLite a copy of every large value.
    func bindBorrowed(_ bytes: UnsafeRawBufferPointer, at index: Int32) throws(StoreError) {
        guard bytes.count <= Int(Int32.max) else { return try check(SQLITE_TOOBIG, "bind") }
        // A NULL pointer would bind SQL NULL; an empty blob must stay an empty blob.
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            return try check(sqlite3_bind_zeroblob(handle, index, 0), "bind")
        }
        try check(sqlite3_bind_blob(handle, index, base, Int32(bytes.count), nil), "bind")
    }

    /// Binds UTF-8 text, or NULL when `value` is nil, to parameter `index` (1-based) without SQLite
    /// copying it: the bytes are copied into `scratch` and bound from there (`SQLITE_STATIC`), which
    /// saves SQLite an allocation, a copy and a free per value. `scratch` must not be cleared before
    /// the statement is reset. Text that does not fit in `scratch` is bound as `bind(_:at:)` binds it.
    func bind(_ value: String?, at index: Int32, copiedInto scratch: TextScratch) throws(StoreError) {
        guard let value else { return try bindNull(at: index) }
        guard let bytes = scratch.copy(value), let base = bytes.baseAddress else { return try bind(value, at: index) }
        let rc = base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
            sqlite3_bind_text(handle, index, $0, Int32(bytes.count), nil)
        }
        try check(rc, "bind")
    }

    /// Binds an optional integer (NULL when nil) to parameter `index` (1-based).
    package func bind(_ value: Int64?, at index: Int32) throws(StoreError) {
        guard let value else { return try bindNull(at: index) }
        try bind(value, at: index)
    }

    /// Binds SQL NULL to parameter `index` (1-based).
    package func bindNull(at index: Int32) throws(StoreError) {
        try check(sqlite3_bind_null(handle, index), "bind")
    }

    // MARK: - Stepping

    /// Runs the statement one step: true when a row is available, false when it is done.
    package func step() throws(StoreError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw StoreError(sqlite: rc, connection: connection, operation: "step", sql: sql)
        }
    }

    /// Runs a statement that returns no rows (or whose rows do not matter) to completion.
    package func run() throws(StoreError) {
        while try step() {}
    }

    /// Resets the statement and clears its bindings so it can run again.
    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: - Columns

    /// True when column `index` (0-based) of the current row is NULL.
    package func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// Column `index` (0-based) as an integer (0 for NULL).
    package func int64(_ index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// Column `index` (0-based) as a double (0 for NULL).
    package func double(_ index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// Column `index` (0-based) as text, or nil for NULL.
    package func text(_ index: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, index) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Column `index` (0-based) as bytes, or nil for NULL (an empty blob is `[]`).
    package func blob(_ index: Int32) -> [UInt8]? {
        if isNull(index) { return nil }
        // sqlite3_column_blob must come before sqlite3_column_bytes (SQLite's documented order).
        guard let pointer = sqlite3_column_blob(handle, index) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, index))
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    private func check(_ rc: Int32, _ operation: String) throws(StoreError) {
        guard rc == SQLITE_OK else {
            throw StoreError(sqlite: rc, connection: connection, operation: operation, sql: sql)
        }
    }
}
