/// The relay's durable store: one writer (group commit) and one reader on the same SQLite file.
///
/// The domain keeps live state in memory and sends every change here as a `StoreBatch`; at
/// startup it reads the documents, the meta values and the tail of the event log back.
package final class Store: Sendable {
    /// Where every write goes.
    package let writer: StoreWriter
    /// Where reads come from; sees only committed data.
    package let reader: StoreReader

    /// Opens (creating and migrating when needed) the store at `path`.
    package init(
        path: String, options: DatabaseOptions = DatabaseOptions(), durability: StoreDurability = .syncEachCommit
    ) throws(StoreError) {
        writer = try StoreWriter(path: path, options: options, durability: durability)
        do {
            reader = try StoreReader(path: path)
        } catch {
            writer.close()
            throw error
        }
    }

    /// Commits everything queued and closes both connections.
    package func close() {
        writer.close()
        reader.close()
    }
}
