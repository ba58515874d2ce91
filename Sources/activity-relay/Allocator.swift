import CJemalloc

/// The process's memory allocator. The executable links jemalloc (the `CJemalloc` module), whose
/// `malloc` and `free` then serve every library in the process, the Swift runtime's and SQLite's
/// included: the relay frees on one thread much of what another allocated (event loops build the
/// store's batches, the writer frees them), which glibc's per-thread arenas serve with a lock per
/// free. The startup line names the allocator actually in use.
enum Allocator {
    /// `jemalloc VERSION` when the process's `malloc` is jemalloc's (checked by allocating), else
    /// `system malloc`.
    static var description: String {
        guard relay_jemalloc_serves_malloc() != 0, let version = relay_jemalloc_version() else {
            return "system malloc"
        }
        // "5.3.0-0-g54eaed1d..." is shown as "5.3.0".
        let full = String(cString: version)
        return "jemalloc " + (full.split(separator: "-").first.map(String.init) ?? full)
    }
}
