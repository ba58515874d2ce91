extension Database {
    /// How a transaction takes its locks.
    package enum TransactionKind: String, Sendable {
        /// Takes the write lock at the first write (reads may share).
        case deferred = "DEFERRED"
        /// Takes the write lock at once, so a writer never fails half-way on a busy lock.
        case immediate = "IMMEDIATE"
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    ///
    /// A failed COMMIT is rolled back too, so the connection is always left outside a transaction.
    package func transaction<T>(
        _ kind: TransactionKind = .immediate, _ body: () throws(StoreError) -> T
    ) throws(StoreError) -> T {
        try execute("BEGIN \(kind.rawValue)")
        let result: T
        do {
            result = try body()
            try execute("COMMIT")
        } catch {
            rollback()
            throw error
        }
        return result
    }

    /// Runs `body` inside a savepoint named `name`: a failure undoes only what `body` did and
    /// leaves the enclosing transaction open (unless SQLite itself abandoned it; see `isAutocommit`).
    package func savepoint<T>(_ name: String, _ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try execute("SAVEPOINT \(name)")
        do {
            let result = try body()
            try execute("RELEASE \(name)")
            return result
        } catch {
            if !isAutocommit {
                try? execute("ROLLBACK TO \(name)")
                try? execute("RELEASE \(name)")
            }
            throw error
        }
    }

    /// Rolls back the open transaction, if any; used on failure paths, so it never throws.
    package func rollback() {
        if !isAutocommit { try? execute("ROLLBACK") }
    }

    /// The schema version kept in the file header (`PRAGMA user_version`).
    package func userVersion() throws(StoreError) -> Int32 {
        try withStatement("PRAGMA user_version") { statement throws(StoreError) in
            try statement.step() ? Int32(truncatingIfNeeded: statement.int64(0)) : 0
        }
    }

    /// Sets the schema version in the file header; call inside the migration's transaction.
    func setUserVersion(_ version: Int32) throws(StoreError) {
        try execute("PRAGMA user_version = \(version)")
    }
}
