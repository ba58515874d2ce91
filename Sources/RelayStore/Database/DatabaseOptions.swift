/// How a `Database` connection is opened and tuned.
package struct DatabaseOptions: Sendable, Equatable {
    /// SQLite's `synchronous` setting: how hard a commit pushes data to the disk.
    package enum Synchronous: String, Sendable, Equatable {
        /// Every commit fsyncs the write-ahead log: a commit survives power loss. The default.
        /// A `StoreWriter` commits with `NORMAL` on such a connection and syncs the log itself,
        /// before each acknowledgement or periodically, as its `StoreDurability` says.
        case full = "FULL"
        /// Commits are fsynced only at checkpoints: a commit survives a process crash but the
        /// last few may be lost on power loss. Much faster on slow disks.
        case normal = "NORMAL"
    }

    /// How hard a commit pushes data to the disk.
    package var synchronous: Synchronous
    /// How long a statement waits for another connection's lock before failing with `SQLITE_BUSY`.
    package var busyTimeoutMilliseconds: Int32
    /// Creates the file when it does not exist (ignored for read-only connections).
    package var create: Bool
    /// Opens a connection that refuses every write (`PRAGMA query_only`); for readers beside a writer.
    package var readOnly: Bool
    /// How many prepared statements the connection keeps; past that the cache starts over.
    package var statementCacheCapacity: Int

    /// Options for a durable read-write connection: WAL, `synchronous=FULL`, 5 s busy timeout.
    package init(
        synchronous: Synchronous = .full,
        busyTimeoutMilliseconds: Int32 = 5_000,
        create: Bool = true,
        readOnly: Bool = false,
        statementCacheCapacity: Int = 64
    ) {
        self.synchronous = synchronous
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.create = create
        self.readOnly = readOnly
        self.statementCacheCapacity = statementCacheCapacity
    }

    /// Options for a reader beside a writer on the same file: no creation, no writes.
    package static let reader = DatabaseOptions(create: false, readOnly: true)
}
