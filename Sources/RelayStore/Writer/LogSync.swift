import Foundation

/// Makes a database's write-ahead log durable with `fdatasync`, through a descriptor of its own.
///
/// The writer's connection commits with `synchronous = NORMAL` (its frames are written, not
/// synced) and the sync thread calls `sync()` for every commit group it acknowledges: whatever
/// was written to the log before the call is on the disk when it returns. `fsync` and
/// `fdatasync` act on the file, not on the descriptor, so one opened here covers SQLite's
/// writes. The log is the same file for as long as the writer's connection is open (SQLite
/// removes it only when the last connection closes); a descriptor whose file was unlinked is
/// reopened all the same.
final class LogSync {
    /// The write-ahead log's path.
    let path: String
    private var descriptor: Int32 = -1

    /// Syncs the log of the database at `databasePath`.
    init(databasePath: String) {
        path = databasePath + "-wal"
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Writes the log's data to the disk; fails with the call and errno.
    func sync() -> Result<Void, StoreError> {
        var info = stat()
        if descriptor >= 0 && (fstat(descriptor, &info) != 0 || info.st_nlink == 0) {
            close(descriptor)
            descriptor = -1
        }
        if descriptor < 0 {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return .failure(Self.failure("open", path)) }
        }
        guard fdatasync(descriptor) == 0 else { return .failure(Self.failure("fdatasync", path)) }
        return .success(())
    }

    private static func failure(_ call: String, _ path: String) -> StoreError {
        .store("sync", "\(call) \(path): \(String(cString: strerror(errno))) (errno \(errno))")
    }
}
