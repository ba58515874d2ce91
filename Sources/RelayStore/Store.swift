/// The relay's durable store: one writer (group commit) and one reader on the same SQLite file.
///
/// The domain keeps live state in memory and sends every change here as a `StoreBatch`; at
/// startup it reads the documents, the meta values and the tail of the event log back.
public final class Store: Sendable {
    /// Where every write goes.
    public let writer: StoreWriter
    /// Where reads come from; sees only committed data.
    public let reader: StoreReader

    /// Opens (creating and migrating when needed) the store at `path`.
    public init(
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
    public func close() {
        writer.close()
        reader.close()
    }
}
