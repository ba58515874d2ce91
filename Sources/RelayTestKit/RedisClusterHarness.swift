import Foundation
import Glibc

/// A throwaway Redis Cluster for live tests: Debian's `redis-server` nodes on free loopback ports in
/// a temporary directory, joined by `redis-cli --cluster create`, stopped and deleted by `stop()`
/// (or when the harness is released).
///
/// Tests that need the cluster call `start`; a machine without `redis-server` fails them with a
/// message saying what to install, never a silent skip.
package final class RedisClusterHarness: @unchecked Sendable {  // Sendable: used from one test thread at a time.
    /// Why the cluster could not be started or driven.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// One redis-server process.
    package struct Node {
        /// Its client port (the cluster bus is this plus 10000).
        package var port: UInt16
        /// Its working directory (nodes.conf, log).
        package var directory: String
        /// The running process, nil once killed or stopped.
        var process: Process?
    }

    /// The temporary directory holding every node's files.
    package let directory: String
    /// The nodes, masters and replicas as `redis-cli --cluster create` chose them.
    package private(set) var nodes: [Node] = []
    /// The password every node requires, if any.
    package let password: String?
    /// With TLS, the nodes' self-signed certificate (for `127.0.0.1` and `localhost`), which is
    /// also the CA file clients verify them with; nil in plain TCP.
    package private(set) var caFile: String?

    /// Every node's `127.0.0.1:port`, for a client's seeds.
    package var seeds: [String] { nodes.map { "127.0.0.1:\($0.port)" } }

    /// Starts `masters` masters with `replicasPerMaster` replicas each, `cluster-node-timeout` set to
    /// `nodeTimeoutMilliseconds` (small, so a killed master's replica is promoted within seconds),
    /// and waits until every node reports `cluster_state:ok` and every master has its replicas.
    /// With `tls`, nodes speak TLS only (clients, the cluster bus and replication).
    package static func start(
        masters: Int = 3, replicasPerMaster: Int = 1, nodeTimeoutMilliseconds: Int = 1000, password: String? = nil,
        tls: Bool = false
    ) throws -> RedisClusterHarness {
        for tool in ["redis-server", "redis-cli"]
        where !FileManager.default.isExecutableFile(atPath: "/usr/bin/\(tool)") {
            throw Failure(
                description: "\(tool) not found: the Redis Cluster tests need Debian's redis-server package "
                    + "(apt-get install -y redis-server, which brings redis-tools)")
        }
        let directory = NSTemporaryDirectory() + "relay-redis-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let harness = RedisClusterHarness(directory: directory, password: password)
        do {
            if tls { try harness.makeCertificate() }
            let ports = try freePorts(count: masters * (1 + replicasPerMaster))
            for port in ports { try harness.launch(port: port, nodeTimeoutMilliseconds: nodeTimeoutMilliseconds) }
            for node in harness.nodes {
                try harness.waitUntil("node \(node.port) answers PING") {
                    (try? harness.cli(node.port, ["PING"])) == "PONG"
                }
            }
            let create = try ChildProcess.run(
                ["redis-cli"] + harness.authArguments + ["--cluster", "create"] + harness.seeds
                    + ["--cluster-replicas", String(replicasPerMaster), "--cluster-yes"], timeout: 60)
            guard create.status == 0 else {
                throw Failure(description: "redis-cli --cluster create failed: \(create.stdout) \(create.stderr)")
            }
            try harness.waitUntilHealthy(replicasPerMaster: replicasPerMaster)
        } catch {
            harness.stop()
            throw error
        }
        return harness
    }

    private init(directory: String, password: String?) {
        self.directory = directory
        self.password = password
    }

    deinit { stop() }

    // MARK: - Driving nodes

    /// Runs `redis-cli -p port args...` and returns its output, trimmed.
    @discardableResult
    package func cli(_ port: UInt16, _ arguments: [String]) throws -> String {
        let outcome = try ChildProcess.run(["redis-cli", "-p", String(port)] + authArguments + arguments, timeout: 30)
        guard outcome.status == 0 else {
            throw Failure(description: "redis-cli -p \(port) \(arguments) failed: \(outcome.stderr)")
        }
        return outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The node id of the node on `port`.
    package func nodeID(_ port: UInt16) throws -> String { try cli(port, ["CLUSTER", "MYID"]) }

    /// The port of the master serving `slot`, as the node on `askingPort` sees it.
    package func masterPort(forSlot slot: Int, askingPort: UInt16? = nil) throws -> UInt16 {
        for line in try cli(askingPort ?? nodes[0].port, ["CLUSTER", "NODES"]).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 8, fields[2].contains("master"), !fields[2].contains("fail") else { continue }
            for range in fields[8...] {
                let bounds = range.split(separator: "-").compactMap { Int($0) }
                if bounds.count == 1 && bounds[0] == slot
                    || bounds.count == 2 && (bounds[0]...bounds[1]).contains(slot),
                    let port = fields[1].split(separator: ":").last?.split(separator: "@").first.flatMap({ UInt16($0) })
                {
                    return port
                }
            }
        }
        throw Failure(description: "no live master serves slot \(slot)")
    }

    /// The ports of the masters, in the order `CLUSTER NODES` lists them.
    package func masterPorts() throws -> [UInt16] {
        try livePorts().filter { port in try cli(port, ["ROLE"]).hasPrefix("master") }
    }

    /// Ends the node on `port` with SIGKILL, as a crash would.
    package func kill(port: UInt16) {
        guard let index = nodes.firstIndex(where: { $0.port == port }), let process = nodes[index].process else {
            return
        }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        nodes[index].process = nil
    }

    /// Polls `condition` every 100 ms for up to `timeout` seconds; throws naming `what` if it never holds.
    package func waitUntil(_ what: String, timeout: Double = 60, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if (try? condition()) == true { return }
            usleep(100_000)
        }
        throw Failure(description: "timed out after \(timeout) s waiting until \(what)")
    }

    /// Stops every node and deletes the directory; safe to call twice.
    package func stop() {
        for index in nodes.indices {
            guard let process = nodes[index].process else { continue }
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            nodes[index].process = nil
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    // MARK: - Private

    private var authArguments: [String] {
        (password.map { ["-a", $0, "--no-auth-warning"] } ?? []) + (caFile.map { ["--tls", "--cacert", $0] } ?? [])
    }

    /// A self-signed P-256 certificate and key for `127.0.0.1` and `localhost`, made with openssl.
    private func makeCertificate() throws {
        let certificate = "\(directory)/tls-cert.pem"
        let made = try ChildProcess.run(
            [
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                "\(directory)/tls-key.pem", "-out", certificate, "-days", "2", "-subj", "/CN=localhost", "-addext",
                "subjectAltName=DNS:localhost,IP:127.0.0.1",
            ], timeout: 30)
        guard made.status == 0 else {
            throw Failure(description: "openssl could not make a certificate: \(made.stderr)")
        }
        caFile = certificate
    }

    private func livePorts() -> [UInt16] { nodes.filter { $0.process != nil }.map(\.port) }

    private func launch(port: UInt16, nodeTimeoutMilliseconds: Int) throws {
        let nodeDirectory = "\(directory)/\(port)"
        try FileManager.default.createDirectory(atPath: nodeDirectory, withIntermediateDirectories: true)
        var config = """
            port \(caFile == nil ? port : 0)
            bind 127.0.0.1
            protected-mode no
            daemonize no
            dir \(nodeDirectory)
            logfile \(nodeDirectory)/redis.log
            cluster-enabled yes
            cluster-config-file nodes.conf
            cluster-node-timeout \(nodeTimeoutMilliseconds)
            appendonly no
            save ""
            repl-diskless-sync-delay 0

            """
        if let password { config += "requirepass \(password)\nmasterauth \(password)\n" }
        if let caFile {
            config += """
                tls-port \(port)
                tls-cert-file \(caFile)
                tls-key-file \(directory)/tls-key.pem
                tls-ca-cert-file \(caFile)
                tls-auth-clients no
                tls-cluster yes
                tls-replication yes

                """
        }
        try config.write(toFile: "\(nodeDirectory)/redis.conf", atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        process.arguments = ["\(nodeDirectory)/redis.conf"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        nodes.append(Node(port: port, directory: nodeDirectory, process: process))
    }

    private func waitUntilHealthy(replicasPerMaster: Int) throws {
        for port in livePorts() {
            try waitUntil("node \(port) reports cluster_state:ok") {
                try cli(port, ["CLUSTER", "INFO"]).contains("cluster_state:ok")
            }
        }
        for port in try masterPorts() {
            do {
                try waitUntil("master \(port) has \(replicasPerMaster) replica(s) in sync") {
                    let info = try cli(port, ["INFO", "replication"])
                    let online = info.split(whereSeparator: \.isNewline).filter {
                        $0.hasPrefix("slave") && $0.contains("state=online")
                    }
                    return online.count >= replicasPerMaster
                }
            } catch let failure as Failure {
                let info = (try? cli(port, ["INFO", "replication"])) ?? "no answer"
                throw Failure(description: "\(failure.description); INFO replication: \(info)")
            }
        }
    }

    /// Loopback ports free for both the client port and its cluster bus port (+10000).
    private static func freePorts(count: Int) throws -> [UInt16] {
        var ports: [UInt16] = []
        var candidate = UInt16.random(in: 20_000...(54_000 - UInt16(count) * 50))
        while ports.count < count && candidate < 55_000 {
            if isFree(candidate) && isFree(candidate + 10_000) { ports.append(candidate) }
            candidate += 1
        }
        guard ports.count == count else { throw Failure(description: "could not find \(count) free loopback ports") }
        return ports
    }

    private static func isFree(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
