import CRelayLinux
import Glibc

/// The socket calls of `TLSClient`: a non-blocking, close-on-exec TCP connect with a deadline,
/// and `poll` waits measured against the monotonic clock.
enum ClientSocket {
    /// Monotonic seconds, for deadlines.
    static func now() -> Double { Double(MonotonicClock.nanoseconds()) / 1e9 }

    /// Connects to `host:port` (an IP literal, `localhost`, or a name looked up with
    /// `getaddrinfo`), trying each address until one answers before `deadline`.
    static func open(host: String, port: UInt16, deadline: Double, receiveBufferBytes: Int?) throws(TLSError) -> Int32 {
        let addresses = try resolve(host: host, port: port)
        var lastError = "no address"
        for address in addresses {
            do throws(SystemError) {
                return try connect(address, deadline: deadline, receiveBufferBytes: receiveBufferBytes)
            } catch {
                lastError = "\(address): \(error)"
            }
        }
        throw TLSError(operation: "connect to \(host):\(port)", reason: lastError)
    }

    /// Waits until `fd` is ready for `events` (POLLIN or POLLOUT); false at `deadline` (nil: never).
    static func wait(_ fd: Int32, for events: Int16, deadline: Double?) throws(TLSError) -> Bool {
        while true {
            var timeout: Int32 = -1
            if let deadline {
                let left = deadline - now()
                if left <= 0 {
                    timeout = 0
                } else {
                    timeout = Int32(min(left * 1000, Double(Int32.max)).rounded(.up))
                }
            }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&entry, 1, timeout)
            if ready > 0 { return true }  // readable, writable, or an error the next call reports
            if ready == 0 { return false }
            let error = relay_errno()
            guard error == EINTR else {
                throw TLSError(operation: "poll", reason: String(cString: strerror(error)))
            }
        }
    }

    // MARK: - Private

    private static func resolve(host: String, port: UInt16) throws(TLSError) -> [SocketAddress] {
        if let literal = try? SocketAddress(host: host, port: port) { return [literal] }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            throw TLSError(operation: "look up \(host)", reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry, addresses.count < 8 {
            if let raw = current.pointee.ai_addr {
                var storage = sockaddr_storage()
                let length = min(Int(current.pointee.ai_addrlen), MemoryLayout<sockaddr_storage>.size)
                withUnsafeMutableBytes(of: &storage) { target in
                    target.copyMemory(from: UnsafeRawBufferPointer(start: raw, count: length))
                }
                addresses.append(SocketAddress(storage: storage, length: socklen_t(length)))
            }
            entry = current.pointee.ai_next
        }
        return addresses
    }

    private static func connect(_ address: SocketAddress, deadline: Double, receiveBufferBytes: Int?)
        throws(SystemError) -> Int32
    {
        let fd = try syscall("socket") {
            socket(
                address.family,
                Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        do throws(SystemError) {
            if let receiveBufferBytes {
                var size = Int32(clamping: receiveBufferBytes)
                try syscall("setsockopt(SO_RCVBUF)") {
                    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
                }
            }
            var one: Int32 = 1
            try syscall("setsockopt(TCP_NODELAY)") {
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            }
            let status = try address.withSockAddr { pointer, length in Glibc.connect(fd, pointer, length) }
            if status != 0 {
                let error = relay_errno()
                guard error == EINPROGRESS || error == EINTR else { throw SystemError(call: "connect", errno: error) }
                let ready: Bool
                do throws(TLSError) {
                    ready = try wait(fd, for: Int16(POLLOUT), deadline: deadline)
                } catch {
                    throw SystemError(call: "poll", errno: EIO)
                }
                guard ready else { throw SystemError(call: "connect", errno: ETIMEDOUT) }
                if let pending = Socket(fd: fd).pendingError() {
                    throw SystemError(call: "connect", errno: pending.errno)
                }
            }
            return fd
        } catch {
            _ = Glibc.close(fd)
            throw error
        }
    }
}
