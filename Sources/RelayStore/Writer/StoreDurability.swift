import RelayCore

/// When an acknowledged commit reaches the disk.
///
/// Both keep what a `200` acknowledged through a crash of the process (`kill -9`): a batch's
/// completion runs only after its commit is in the write-ahead log, which the kernel holds for
/// the file whatever becomes of the process. They differ on power loss (or a kernel crash).
public enum StoreDurability: Sendable, Equatable {
    /// `fdatasync` of the log before every acknowledgement: an acknowledged commit also survives
    /// power loss. The sync is on the acknowledgement's path.
    case syncEachCommit
    /// Acknowledged once the commit is written to the log; a thread of its own syncs the log
    /// every `interval` when anything was committed since its last sync, so power loss loses at
    /// most about `interval` of acknowledged commits (SQLite's `synchronous = NORMAL` with a
    /// bound). Never corrupts the database either way.
    case syncPeriodically(Duration)
}

extension StoreDurability: CustomStringConvertible {
    /// `each-commit`, or `every-0.1s` (the interval in seconds, whole ones without a fraction).
    public var description: String {
        switch self {
        case .syncEachCommit:
            return "each-commit"
        case .syncPeriodically(let interval):
            return "every-\(interval.inSeconds.plainText)s"
        }
    }
}
