import Glibc

/// A failed file operation: what was done to which path, and the errno it left.
struct FileSystemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being done, e.g. `read` or `create directory`.
    var operation: String
    /// The path it was done to.
    var path: String
    /// The errno, or 0 when the failure is ours (`reason` then says why).
    var errno: Int32
    /// Our own reason, when `errno` is 0.
    var reason: String = ""

    var description: String {
        let why = errno == 0 ? reason : String(cString: strerror(errno))
        return "cannot \(operation) \(path): \(why)"
    }
}

/// The few file operations configuration and the data directory need, on Glibc directly so that
/// modes are exact and creation is atomic.
enum FileSystem {
    /// What `stat` says about a path, or nil when nothing is there.
    struct Status: Sendable, Hashable {
        /// The permission bits (`0o7777` part of `st_mode`).
        var permissions: mode_t
        /// True for a directory.
        var isDirectory: Bool
        /// True for a regular file.
        var isRegularFile: Bool
    }

    /// The status of `path` (following symbolic links), or nil when it does not exist.
    static func status(_ path: String) throws(FileSystemError) -> Status? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw FileSystemError(operation: "inspect", path: path, errno: errno)
        }
        let type = info.st_mode & S_IFMT
        return Status(permissions: info.st_mode & 0o7777, isDirectory: type == S_IFDIR, isRegularFile: type == S_IFREG)
    }

    /// The whole file at `path`, refusing files larger than `limit` bytes.
    static func read(_ path: String, limit: Int) throws(FileSystemError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError(operation: "read", path: path, errno: errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileSystemError(operation: "read", path: path, errno: errno)
            }
            if count == 0 { return bytes }
            guard bytes.count + count <= limit else {
                throw FileSystemError(operation: "read", path: path, errno: 0, reason: "larger than \(limit) bytes")
            }
            bytes.append(contentsOf: chunk[..<count])
        }
    }

    /// Creates `path` holding `contents` with exactly `mode`, unless something already exists
    /// there; returns true when it created the file. The contents are written and synced under a
    /// temporary name first, then linked into place, so a reader never sees a half-written file
    /// and two processes starting at once end up sharing one file rather than overwriting each other.
    static func createExclusively(_ path: String, contents: [UInt8], mode: mode_t) throws(FileSystemError) -> Bool {
        let temporary = "\(path).tmp-\(getpid())"
        unlink(temporary)  // a leftover of this pid's earlier crash
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw FileSystemError(operation: "create", path: temporary, errno: errno) }
        defer { unlink(temporary) }
        do throws(FileSystemError) {
            try check(fchmod(fd, mode), "set the mode of", temporary)  // exact mode whatever the umask
            try writeAll(fd, contents, temporary)
            try check(fsync(fd), "sync", temporary)
        } catch {
            close(fd)
            throw error
        }
        close(fd)
        guard link(temporary, path) == 0 else {
            if errno == EEXIST { return false }
            throw FileSystemError(operation: "create", path: path, errno: errno)
        }
        syncDirectory(of: path)
        return true
    }

    /// Creates the directory `path` and any missing parents with `mode`; returns true when it
    /// created the last one. The last one gets exactly `mode`, whatever the umask.
    static func makeDirectories(_ path: String, mode: mode_t) throws(FileSystemError) -> Bool {
        if let existing = try status(path) {
            guard existing.isDirectory else {
                throw FileSystemError(
                    operation: "use", path: path, errno: 0, reason: "it exists and is not a directory")
            }
            return false
        }
        let parent = directoryName(of: path)
        if parent != path { _ = try makeDirectories(parent, mode: mode) }
        guard mkdir(path, mode) == 0 else {
            if errno == EEXIST, try status(path)?.isDirectory == true { return false }
            throw FileSystemError(operation: "create directory", path: path, errno: errno)
        }
        try check(chmod(path, mode), "set the mode of", path)
        return true
    }

    /// The process's working directory.
    static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "." }
        let end = buffer.firstIndex(of: 0) ?? buffer.endIndex
        return String(decoding: buffer[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `path` made absolute against `base`, with `.` components, repeated and trailing slashes removed.
    static func absolute(_ path: String, relativeTo base: String) -> String {
        let joined = path.hasPrefix("/") ? path : base + "/" + path
        let parts = joined.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        return "/" + parts.joined(separator: "/")
    }

    /// The directory part of an absolute path (`/` for `/` and for top-level names).
    static func directoryName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// The last component of a path.
    static func baseName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    private static func writeAll(_ fd: Int32, _ contents: [UInt8], _ path: String) throws(FileSystemError) {
        var offset = 0
        while offset < contents.count {
            let written = contents.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw FileSystemError(operation: "write", path: path, errno: errno)
            }
            offset += written
        }
    }

    private static func check(_ result: Int32, _ operation: String, _ path: String) throws(FileSystemError) {
        guard result == 0 else { throw FileSystemError(operation: operation, path: path, errno: errno) }
    }

    /// Makes a new directory entry durable; best effort (some file systems refuse to sync directories).
    private static func syncDirectory(of path: String) {
        let fd = open(directoryName(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}
