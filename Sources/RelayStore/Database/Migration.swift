/// One step of the schema's history: the SQL that takes the file from `version - 1` to `version`,
/// and for a step that moves data into a new shape, the code that does it after that SQL.
///
/// The file's `PRAGMA user_version` records the last step applied, so applying a list again does
/// nothing, and an old file is brought forward step by step.
package struct Migration: Sendable {
    /// The version this step produces; steps are numbered 1, 2, 3, ... with no gaps.
    package var version: Int32
    /// One or more `;`-separated statements.
    package var sql: String
    /// Run after `sql`, in the same transaction.
    var convert: (@Sendable (Database) throws(StoreError) -> Void)?

    /// A step producing `version` by running `sql`.
    package init(version: Int32, sql: String) {
        self.version = version
        self.sql = sql
    }

    /// A step producing `version` by running `sql`, then `convert`.
    init(version: Int32, sql: String, convert: @escaping @Sendable (Database) throws(StoreError) -> Void) {
        self.version = version
        self.sql = sql
        self.convert = convert
    }
}

extension Database {
    /// Applies every step of `migrations` newer than the file's `user_version`, all in one
    /// transaction together with the version bumps (all or nothing), and returns the version the
    /// file ends at.
    ///
    /// Idempotent: a file already at the latest version is left alone. A file from a newer relay
    /// (a version past the list) is refused rather than guessed at.
    @discardableResult
    package func migrate(_ migrations: [Migration]) throws(StoreError) -> Int32 {
        for (offset, step) in migrations.enumerated() where step.version != Int32(offset + 1) {
            throw StoreError.store(
                "migrate", "migration at position \(offset) has version \(step.version), expected \(offset + 1)")
        }
        let latest = Int32(migrations.count)
        // Take the write lock before reading the version so two processes cannot both migrate.
        return try transaction(.immediate) { () throws(StoreError) -> Int32 in
            let current = try userVersion()
            guard current <= latest else {
                throw StoreError.store(
                    "migrate", "\(path) has schema version \(current), newer than this relay's \(latest)")
            }
            for step in migrations.dropFirst(Int(current)) {
                try execute(step.sql)
                try step.convert?(self)
                try setUserVersion(step.version)
            }
            return latest
        }
    }
}
