import RelayNet

/// Where the relay listens: an IP literal (or `localhost`) and a TCP port.
///
/// Written `HOST:PORT`, with IPv6 hosts in brackets (`[::1]:8443`). Port 0 asks the kernel for a
/// free port, which tests use. Host names other than `localhost` are refused: a listen address is
/// a literal, and resolving names would block (see `RelayNet.SocketAddress`).
package struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// The host without brackets: `127.0.0.1`, `::`, `localhost`.
    package var host: String
    /// The TCP port; 0 picks a free one.
    package var port: UInt16

    /// An address.
    package init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// `127.0.0.1:8443`, the default: only this machine can connect.
    package static let `default` = ListenAddress(host: "127.0.0.1", port: 8443)

    /// What `parse(_:)` accepts, for error messages.
    static let expectation = "HOST:PORT with a port 0-65535 and HOST an IPv4 literal, [IPv6] literal or localhost"

    /// Parses `HOST:PORT`; nil when it is not one `RelayNet` can bind.
    static func parse(_ text: String) -> ListenAddress? {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        guard !portText.isEmpty, portText.count <= 5, portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let port = UInt16(portText)
        else { return nil }
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2 else { return nil }
            host = String(host.dropFirst().dropLast())
            guard host.contains(":") else { return nil }  // brackets are for IPv6 only
        } else if host.contains(":") {
            return nil  // an IPv6 host needs brackets, or the port would be ambiguous
        }
        guard !host.isEmpty, (try? SocketAddress(host: host, port: port)) != nil else { return nil }
        return ListenAddress(host: host, port: port)
    }

    /// `HOST:PORT`, with brackets around an IPv6 host.
    package var description: String { "\(Self.bracketed(host)):\(port)" }

    /// The host to put in a URL for a client on this machine: `localhost` when the relay listens
    /// on a loopback or wildcard address (the generated certificate names `localhost`), else the
    /// host itself (bracketed when IPv6).
    package var clientHost: String {
        switch host.lowercased() {
        case "127.0.0.1", "0.0.0.0", "::", "::1", "localhost": "localhost"
        default: Self.bracketed(host)
        }
    }

    private static func bracketed(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }
}
