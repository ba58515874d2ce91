import CRelayLinux
import Glibc

/// Runs a system call that returns -1 on failure, retrying on EINTR and throwing `SystemError` otherwise.
@discardableResult
func syscall<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(SystemError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = relay_errno()
        if code == EINTR { continue }
        throw SystemError(call: name, errno: code)
    }
}

/// Outcome of a non-blocking read or write: bytes moved, or "try again when epoll says so".
enum IOResult: Equatable {
    /// This many bytes moved; for a read, 0 means the peer closed its side.
    case processed(Int)
    /// EAGAIN: nothing moved now.
    case wouldBlock
}

/// Like `syscall` but maps EAGAIN/EWOULDBLOCK to `.wouldBlock` for non-blocking descriptors.
func nonBlockingSyscall(_ name: String, _ body: () -> Int) throws(SystemError) -> IOResult {
    while true {
        let result = body()
        if result >= 0 { return .processed(result) }
        let code = relay_errno()
        if code == EINTR { continue }
        if code == EAGAIN || code == EWOULDBLOCK { return .wouldBlock }
        throw SystemError(call: name, errno: code)
    }
}
