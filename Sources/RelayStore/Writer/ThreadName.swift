import Foundation

/// Names the calling thread for `top -H`, `/proc` and debuggers (at most 15 bytes are kept).
///
/// `Thread.name` does not reach the kernel on Linux, and `pthread_setname_np` and `prctl` are
/// not importable without a C shim; writing `/proc/thread-self/comm` is what they do.
enum ThreadName {
    static func set(_ name: String) {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }
}
