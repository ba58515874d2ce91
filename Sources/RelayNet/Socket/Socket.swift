import CRelayLinux
import Glibc

/// A non-blocking, close-on-exec TCP socket descriptor and the few calls RelayNet makes on it.
///
/// A plain value: whoever holds it owns the descriptor and must `close()` it exactly once. Sendable so an
/// accepted socket can be handed to another loop.
struct Socket: Sendable {
    /// The descriptor.
    let fd: Int32

    /// Opens a listening socket on `address` with SO_REUSEADDR (so a restart can rebind while old
    /// connections sit in TIME_WAIT; another live listener on the port is still EADDRINUSE).
    static func listen(on address: SocketAddress, backlog: Int32) throws(SystemError) -> Socket {
        let fd = try syscall("socket") {
            socket(
                address.family,
                Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        let listener = Socket(fd: fd)
        do throws(SystemError) {
            try listener.setOption(SOL_SOCKET, SO_REUSEADDR, 1, name: "setsockopt(SO_REUSEADDR)")
            if address.family == AF_INET6 {  // `::` means IPv6 only; dual-stack would surprise a literal.
                try listener.setOption(Int32(IPPROTO_IPV6), IPV6_V6ONLY, 1, name: "setsockopt(IPV6_V6ONLY)")
            }
            try address.withSockAddr { pointer, length throws(SystemError) in
                try syscall("bind \(address)") { bind(fd, pointer, length) }
            }
            try syscall("listen") { Glibc.listen(fd, backlog) }
        } catch {
            listener.close()
            throw error
        }
        return listener
    }

    /// Accepts one pending connection as a non-blocking, close-on-exec socket; nil when none is pending.
    func accept() throws(SystemError) -> (Socket, SocketAddress)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        while true {
            let fd = withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    accept4(self.fd, $0, &length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
                }
            }
            if fd >= 0 { return (Socket(fd: fd), SocketAddress(storage: storage, length: length)) }
            switch relay_errno() {
            case EINTR, ECONNABORTED, EPROTO: continue  // the peer gave up while queued: try the next one
            case EAGAIN, EWOULDBLOCK: return nil
            case let code: throw SystemError(call: "accept4", errno: code)
            }
        }
    }

    /// The locally bound address (to learn the port the kernel chose for port 0).
    func localAddress() throws(SystemError) -> SocketAddress {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        try withUnsafeMutablePointer(to: &storage) { pointer throws(SystemError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(SystemError) in
                _ = try syscall("getsockname") { getsockname(fd, address, &length) }
            }
        }
        return SocketAddress(storage: storage, length: length)
    }

    /// Disables Nagle's algorithm: the loop already coalesces a pass's output into one write.
    func setNoDelay() throws(SystemError) {
        try setOption(Int32(IPPROTO_TCP), TCP_NODELAY, 1, name: "setsockopt(TCP_NODELAY)")
    }

    /// Makes the next `close` send a TCP RST instead of a FIN (SO_LINGER on with a zero timeout).
    func setResetOnClose() {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// Reads up to `buffer.count` bytes; `.processed(0)` is the peer's end of stream.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> IOResult {
        try nonBlockingSyscall("recv") { recv(fd, buffer.baseAddress, buffer.count, 0) }
    }

    /// Writes what the kernel accepts now; MSG_NOSIGNAL turns a reset peer into EPIPE instead of SIGPIPE.
    func write(_ bytes: UnsafeRawBufferPointer) throws(SystemError) -> IOResult {
        try nonBlockingSyscall("send") { send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Sends a FIN after what is already queued; reading stays possible.
    func shutdownWrite() {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// The socket's pending error (SO_ERROR), which epoll reports only as EPOLLERR; nil if none.
    func pendingError() -> SystemError? {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) == 0, code != 0 else { return nil }
        return SystemError(call: "socket", errno: code)
    }

    /// Closes the descriptor (errors, including EINTR, are ignored: the descriptor is gone either way on Linux).
    func close() {
        _ = Glibc.close(fd)
    }

    private func setOption(_ level: Int32, _ option: Int32, _ value: Int32, name: String) throws(SystemError) {
        var value = value
        try syscall(name) { setsockopt(fd, level, option, &value, socklen_t(MemoryLayout<Int32>.size)) }
    }
}
