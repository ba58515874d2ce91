import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking plain-TCP client socket, for peers that never speak TLS.
struct RawTCP {
    let fd: Int32

    /// Connects to 127.0.0.1:`port` with a receive timeout of `timeout` seconds.
    init(port: UInt16, timeout: Double = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard status == 0 else {
            Glibc.close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Blocks for input: the byte count, 0 at end of stream, -1 on timeout or error.
    func receive() -> Int {
        var buffer = [UInt8](repeating: 0, count: 4096)
        return recv(fd, &buffer, buffer.count, 0)
    }

    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    func close() { _ = Glibc.close(fd) }
}

/// Open descriptors of this process, counted in /proc/self/fd.
func openDescriptorCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}

/// What each open descriptor of this process points at, for failure messages.
func openDescriptorTargets() -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return names.sorted().map { name in
        "\(name) -> " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name)) ?? "?")
    }
}

/// This process's resident set size in KiB, from /proc/self/status.
func residentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
    else { return -1 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
}
