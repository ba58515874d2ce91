import Foundation
import RelayTestKit
import XCTest

/// The built `activity-relay` serving a fresh data directory with quiet logs, for the crash tests:
/// a client script writes while the relay is killed with SIGKILL, then the relay starts again on
/// the same data and the test checks that every acknowledged write is there. The data directory
/// is removed when this goes away.
final class KillableRelay {
    let data: String
    /// The admin key the relay created on its first start.
    let admin: String
    private let flags: [String]
    private(set) var port: UInt16
    private var process: ChildProcess
    /// Whether `process` is a relay not yet waited for (only such a one may be signalled).
    private var running = true

    /// The relay's process id (to read its memory).
    var processIdentifier: Int32 { process.processIdentifier }
    /// The relay's self-signed certificate, to trust.
    var ca: String { data + "/tls-cert.pem" }
    /// The app API with the admin key, on the current port.
    var api: AppAPIClient { AppAPIClient(base: "https://localhost:\(port)", caPath: ca, key: admin) }

    /// Starts the relay in a new data directory named after `name`, with `flags` for `serve` and
    /// `config` (members of the config file's object, as JSON text, without braces) beside its
    /// quiet log level. With `keysFrom`, the certificate, admin key and development provider key
    /// are copied from that data directory first (cluster nodes that share them).
    init(name: String, flags: [String] = [], config members: String? = nil, keysFrom: String? = nil) throws {
        data = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        if let keysFrom {
            for file in ["tls-cert.pem", "tls-key.pem", "admin-key", "dev-provider-key.p8"] {
                try FileManager.default.copyItem(atPath: keysFrom + "/" + file, toPath: data + "/" + file)
            }
        }
        // Quiet logs: nobody reads the relay's stderr while it runs, so a line per write would fill
        // the pipe and stall the relay.
        let config = data + "/quiet.json"
        let text = #"{"logLevel": "warning""# + (members.map { ", " + $0 } ?? "") + "}"
        try Data(text.utf8).write(to: URL(fileURLWithPath: config))
        self.flags = flags + ["--config", config]
        port = try RelayBinary.freePort()
        process = try RelayBinary.serve(data: data, port: port, extra: self.flags)
        admin = try String(contentsOfFile: data + "/admin-key", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    deinit {
        if running { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(atPath: data)
    }

    /// Starts the script `writer(port)` gives, kills the relay with SIGKILL after `delay` seconds,
    /// waits for the script (which stops when the relay goes away), starts the relay again on a
    /// new port and returns what the script printed, a line per acknowledged write. The script
    /// must print nothing to stderr (a write that failed while the relay was up).
    func killWhileWriting(_ writer: (UInt16) -> [String], after delay: Double, round: Int) throws -> [Substring] {
        let writers = try ChildProcess(writer(port))
        usleep(UInt32(delay * 1_000_000))
        kill(process.processIdentifier, SIGKILL)
        _ = try process.wait(timeout: 10)
        running = false
        writers.closeInput()
        let outcome = try writers.wait(timeout: 30)
        XCTAssertEqual(outcome.stderr, "", "round \(round): every write before the kill succeeds")
        port = try RelayBinary.freePort()
        process = try RelayBinary.serve(data: data, port: port, extra: flags)
        running = true
        return outcome.stdout.split(separator: "\n")
    }

    /// Stops the relay with SIGTERM; it must exit with status 0.
    func stop() throws {
        kill(process.processIdentifier, SIGTERM)
        running = false
        XCTAssertEqual(try process.wait(timeout: 20).status, 0)
    }
}
