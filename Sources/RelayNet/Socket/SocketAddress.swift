import CRelayLinux
import Glibc

/// An IPv4 or IPv6 address and port, as the kernel's `sockaddr` expects it.
package struct SocketAddress: Sendable, CustomStringConvertible {
    private var storage = sockaddr_storage()
    /// The meaningful length of the stored sockaddr.
    private(set) var length: socklen_t = 0

    /// The address family, `AF_INET` or `AF_INET6`.
    package var family: Int32 { Int32(storage.ss_family) }

    /// Parses a listen host: an IPv4 literal (`127.0.0.1`), an IPv6 literal with or without brackets
    /// (`::1`, `[::]`), or `localhost` (which means 127.0.0.1, the address the generated certificate names).
    /// Other host names are refused: a listen address is a literal, and name lookups would block.
    package init(host: String, port: UInt16) throws(SocketAddressError) {
        var literal = host
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = String(literal.dropFirst().dropLast()) }
        if literal.lowercased() == "localhost" { literal = "127.0.0.1" }
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr = v4
            self.init(copying: address)
        } else if inet_pton(AF_INET6, literal, &v6) == 1 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = v6
            self.init(copying: address)
        } else {
            throw SocketAddressError(host: host)
        }
    }

    /// Wraps whatever `accept`/`getsockname` filled in.
    init(storage: sockaddr_storage, length: socklen_t) {
        self.storage = storage
        self.length = length
    }

    private init<Address>(copying address: Address) {
        withUnsafeMutableBytes(of: &storage) { target in
            withUnsafeBytes(of: address) { target.copyMemory(from: $0) }
        }
        length = socklen_t(MemoryLayout<Address>.size)
    }

    /// The port in host byte order.
    package var port: UInt16 {
        withUnsafeBytes(of: storage) { raw in
            switch family {
            case AF_INET: UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port)
            case AF_INET6: UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port)
            default: 0
            }
        }
    }

    /// The address without the port: `127.0.0.1` or `::1`.
    package var host: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let ok: Bool = withUnsafeBytes(of: storage) { raw in
            switch family {
            case AF_INET:
                var address = raw.load(as: sockaddr_in.self).sin_addr
                return inet_ntop(AF_INET, &address, &text, socklen_t(text.count)) != nil
            case AF_INET6:
                var address = raw.load(as: sockaddr_in6.self).sin6_addr
                return inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil
            default:
                return false
            }
        }
        guard ok else { return "unknown" }
        return text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// `127.0.0.1:8443` or `[::1]:8443`.
    package var description: String {
        family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Calls `body` with the address as the `sockaddr` pointer the socket calls take.
    @discardableResult
    func withSockAddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemError) -> T) throws(SystemError) -> T
    {
        let length = length
        return try withUnsafeBytes(of: storage) { raw throws(SystemError) in
            try body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length)
        }
    }
}

/// A listen host that is not an IP literal or `localhost`.
package struct SocketAddressError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The host as given.
    package var host: String

    package var description: String {
        "listen host \"\(host)\" is not an IPv4 or IPv6 literal or \"localhost\""
    }
}
