import Foundation
import RelayServer

/// `activity-relay watch [--url https://localhost:8443] [--data DIR] [--key KEY] [--device ID]
/// [--cacert PATH] [--once]`: a terminal renderer of the event stream. Each activity is a Lock
/// Screen card and each alarm a live countdown, re-rendered every second; a dropped connection
/// resumes with Last-Event-ID. `--once` prints the cards after the snapshot and exits (plain text).
///
/// The key defaults to DIR/admin-key and the CA file to DIR/tls-cert.pem (DIR defaults to
/// `./.relay`). Bad flags: one line, exit 2. Refused by the relay or unreachable with `--once`:
/// one line, exit 1.
enum WatchCommand {
    static let usage =
        "usage: activity-relay watch [--url https://HOST:PORT] [--data DIR] [--key KEY] [--device ID] [--cacert PATH] [--once]"

    static func run(_ arguments: [String]) -> Int32 {
        var url = "https://localhost:8443"
        var data = "./.relay"
        var key: String?
        var device: String?
        var caFile: String?
        var once = false
        var index = 0
        func value(_ flag: String) -> String {
            index += 1
            guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                Terminal.fail("activity-relay watch: \(flag) needs a value\n\(usage)")
            }
            return arguments[index]
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--url": url = value("--url")
            case "--data": data = value("--data")
            case "--key": key = value("--key")
            case "--device": device = value("--device")
            case "--cacert": caFile = value("--cacert")
            case "--once": once = true
            case let other: Terminal.fail("activity-relay watch: unknown option '\(other)'\n\(usage)")
            }
            index += 1
        }
        let (host, port) = parseURL(url)
        let caPath = caFile ?? data + "/tls-cert.pem"
        let bearer = key ?? readKey(data + "/admin-key")
        var options = WatchSession.Options(host: host, port: port, key: bearer, deviceId: device)
        options.once = once
        options.ansi = !once && isatty(STDOUT_FILENO) == 1
        let session: WatchSession
        do {
            session = try WatchSession(options: options, caFile: caPath)
        } catch {
            Terminal.fail("activity-relay watch: --cacert \(caPath): \(error)")
        }
        let outcome = session.run(
            output: { screen in
                FileHandle.standardOutput.write(Data(screen.utf8))
            },
            status: { line in Terminal.error("activity-relay watch: \(line)") })
        switch outcome {
        case .finished:
            return 0
        case .refused(let reason), .failed(let reason):
            Terminal.error("activity-relay watch: \(reason)")
            return 1
        }
    }

    /// `https://HOST[:PORT]` (an IPv6 host in brackets); anything else is a usage error.
    static func parseURL(_ text: String) -> (String, UInt16) {
        guard text.hasPrefix("https://") else {
            Terminal.fail("activity-relay watch: --url \(text) must start with https://")
        }
        var rest = String(text.dropFirst("https://".count))
        if let slash = rest.firstIndex(of: "/") {
            guard rest[slash...] == "/" else {
                Terminal.fail("activity-relay watch: --url \(text) must not have a path")
            }
            rest = String(rest[..<slash])
        }
        var host = rest
        var port: UInt16 = 443
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else {
                Terminal.fail("activity-relay watch: --url \(text) has an unclosed [")
            }
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let parsed = UInt16(after.dropFirst()), parsed > 0 else {
                    Terminal.fail("activity-relay watch: --url \(text) has a bad port")
                }
                port = parsed
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = String(rest[..<colon])
            guard let parsed = UInt16(rest[rest.index(after: colon)...]), parsed > 0 else {
                Terminal.fail("activity-relay watch: --url \(text) has a bad port")
            }
            port = parsed
        }
        guard !host.isEmpty else { Terminal.fail("activity-relay watch: --url \(text) has no host") }
        return (host, port)
    }

    /// The first line of the admin-key file.
    static func readKey(_ path: String) -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let line = text.split(whereSeparator: \.isNewline).first, !line.isEmpty
        else {
            Terminal.fail("activity-relay watch: cannot read the admin key from \(path); pass --key or --data")
        }
        return String(line)
    }
}
