import Foundation
import RelayTestKit
import XCTest

/// What `deploy/` ships, checked as far as this machine can: the Kubernetes and compose files
/// parse as YAML with the expected kinds and fields, the container build installs what the
/// binary links, the systemd unit passes `systemd-analyze verify`, and the binary starts and
/// answers with every example config.
final class DeployTests: XCTestCase {
    private let deploy = Fixtures.repositoryRoot.appendingPathComponent("deploy")

    private func path(_ name: String) -> String { deploy.appendingPathComponent(name).path }

    /// Every document of the YAML files, parsed by PyYAML.
    private func yaml(_ names: [String]) throws -> [(file: String, document: [String: Any])] {
        let outcome = try ChildProcess.run(["python3", Fixtures.path("yaml_documents.py")] + names.map(path))
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let list = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]])
        return try list.map { item in
            (try XCTUnwrap(item["file"] as? String), try XCTUnwrap(item["document"] as? [String: Any]))
        }
    }

    /// `object[a][b]...` for a path of keys (strings) and indexes (ints).
    private func dig(_ object: Any?, _ path: Any...) -> Any? {
        var current = object
        for step in path {
            if let key = step as? String { current = (current as? [String: Any])?[key] }
            if let index = step as? Int {
                guard let array = current as? [Any], array.indices.contains(index) else { return nil }
                current = array[index]
            }
        }
        return current
    }

    func testKubernetesManifestsHaveTheExpectedKindsAndFields() throws {
        let names = ["configmap.yaml", "secret.yaml", "pvc.yaml", "deployment.yaml", "service.yaml"]
        let documents = try yaml(names.map { "kubernetes/" + $0 } + ["kubernetes/kustomization.yaml"])
        var byKind: [String: [String: Any]] = [:]
        for (_, document) in documents { byKind[document["kind"] as? String ?? "?"] = document }
        XCTAssertEqual(
            Set(byKind.keys),
            ["ConfigMap", "Secret", "PersistentVolumeClaim", "Deployment", "Service", "Kustomization"])
        XCTAssertEqual(dig(byKind["Kustomization"], "resources") as? [String], names)

        let deployment = try XCTUnwrap(byKind["Deployment"])
        XCTAssertEqual(dig(deployment, "apiVersion") as? String, "apps/v1")
        XCTAssertEqual(dig(deployment, "spec", "replicas") as? Int, 1)
        XCTAssertEqual(dig(deployment, "spec", "strategy", "type") as? String, "Recreate")
        let pod = dig(deployment, "spec", "template")
        XCTAssertEqual(dig(pod, "metadata", "annotations", "prometheus.io/scrape") as? String, "true")
        XCTAssertEqual(dig(pod, "metadata", "annotations", "prometheus.io/port") as? String, "9464")
        XCTAssertEqual(dig(pod, "spec", "securityContext", "runAsNonRoot") as? Bool, true)
        let container = dig(pod, "spec", "containers", 0)
        for probe in ["readinessProbe", "livenessProbe"] {
            XCTAssertEqual(dig(container, probe, "httpGet", "path") as? String, "/healthz", probe)
            XCTAssertEqual(dig(container, probe, "httpGet", "scheme") as? String, "HTTPS", probe)
            XCTAssertEqual(dig(container, probe, "httpGet", "port") as? String, "https", probe)
        }
        let ports = (dig(container, "ports") as? [[String: Any]] ?? []).map { $0["containerPort"] as? Int }
        XCTAssertEqual(ports, [8443, 9464])
        XCTAssertEqual(dig(container, "securityContext", "allowPrivilegeEscalation") as? Bool, false)
        let volumes = dig(pod, "spec", "volumes") as? [[String: Any]] ?? []
        XCTAssertEqual(
            volumes.first { $0["name"] as? String == "data" }.flatMap { dig($0, "persistentVolumeClaim", "claimName") }
                as? String, dig(byKind["PersistentVolumeClaim"], "metadata", "name") as? String)
        XCTAssertEqual(
            volumes.first { $0["name"] as? String == "keys" }.flatMap { dig($0, "secret", "secretName") } as? String,
            dig(byKind["Secret"], "metadata", "name") as? String)
        XCTAssertEqual(
            volumes.first { $0["name"] as? String == "config" }.flatMap { dig($0, "configMap", "name") } as? String,
            dig(byKind["ConfigMap"], "metadata", "name") as? String)
        let mounts = (dig(container, "volumeMounts") as? [[String: Any]] ?? []).compactMap {
            $0["mountPath"] as? String
        }
        XCTAssertTrue(mounts.contains("/var/lib/activity-relay"))

        // The Secret holds the files the ConfigMap's relay.json names under /etc/activity-relay/keys.
        let secretKeys = Set((dig(byKind["Secret"], "stringData") as? [String: Any] ?? [:]).keys)
        let config = try XCTUnwrap(dig(byKind["ConfigMap"], "data", "relay.json") as? String)
        let named = config.matches(of: /\/etc\/activity-relay\/keys\/([A-Za-z0-9_.]+)/).map { String($0.1) }
        XCTAssertEqual(Set(named), secretKeys)
        XCTAssertEqual(dig(byKind["PersistentVolumeClaim"], "spec", "accessModes") as? [String], ["ReadWriteOnce"])

        let service = try XCTUnwrap(byKind["Service"])
        XCTAssertEqual(dig(service, "metadata", "annotations", "prometheus.io/port") as? String, "9464")
        XCTAssertEqual(
            dig(service, "spec", "selector") as? [String: String],
            dig(deployment, "spec", "selector", "matchLabels") as? [String: String])
        XCTAssertEqual(
            (dig(service, "spec", "ports") as? [[String: Any]] ?? []).map { $0["port"] as? Int }, [8443, 9464])
    }

    func testComposeRunsTheRelayWithAVolumeAndPrometheusScrapingIt() throws {
        let documents = try yaml(["compose/compose.yaml", "compose/prometheus.yml"])
        XCTAssertEqual(documents.count, 2)
        let compose = documents[0].document
        XCTAssertEqual(dig(compose, "services", "relay", "build", "dockerfile") as? String, "deploy/Dockerfile")
        XCTAssertEqual(
            dig(compose, "services", "relay", "volumes") as? [String], ["relay-data:/var/lib/activity-relay"])
        XCTAssertNotNil(dig(compose, "volumes", "relay-data"))
        XCTAssertNotNil(dig(compose, "services", "prometheus", "image"))
        let scrape = dig(documents[1].document, "scrape_configs", 0)
        XCTAssertEqual(dig(scrape, "scheme") as? String, "https")
        XCTAssertEqual(dig(scrape, "metrics_path") as? String, "/metrics")
        XCTAssertEqual(dig(scrape, "static_configs", 0, "targets") as? [String], ["relay:9464"])
        // The port scraped is the container config's metrics listener.
        let container = try String(contentsOfFile: path("container/relay.json"), encoding: .utf8)
        XCTAssertTrue(container.contains(#""listen": "0.0.0.0:9464""#))
    }

    func testTheContainerBuildInstallsWhatTheBinaryLinks() throws {
        let dockerfile = try String(contentsOfFile: path("Dockerfile"), encoding: .utf8)
        let stages = dockerfile.split(separator: "\n").filter { $0.hasPrefix("FROM ") }
        XCTAssertEqual(stages.count, 2, "a build stage and a runtime stage")
        XCTAssertTrue(stages[0].contains("swift:"), "built with the Swift toolchain image")
        XCTAssertTrue(stages[1].contains("debian:") && stages[1].contains("-slim"), "runs on slim Debian")
        let runtimeStart = try XCTUnwrap(dockerfile.range(of: String(stages[1]))).lowerBound
        let runtime = String(dockerfile[runtimeStart...])
        for line in ["USER 10001:10001", #"VOLUME ["/var/lib/activity-relay"]"#, "HEALTHCHECK", "/healthz"] {
            XCTAssertTrue(runtime.contains(line), line)
        }
        XCTAssertTrue(dockerfile.contains("COPY deploy/container/relay.json"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("container/relay.json")))
        // Every shared library the binary links, other than the Swift runtime (linked statically in
        // the image), comes from a package the runtime stage installs or slim Debian has.
        let installed = Set(runtime.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
        let base: Set<String> = ["libc6", "libgcc-s1", "libstdc++6", "zlib1g"]
        let ldd = try ChildProcess.run(["ldd", RelayBinary.path])
        for line in ldd.stdout.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count >= 3, parts[2].hasPrefix("/"), !parts[2].contains("/swift/") else { continue }
            let library = String(parts[2])
            let direct = try ChildProcess.run(["dpkg", "-S", library]).stdout
            let merged = try ChildProcess.run(["dpkg", "-S", "/usr" + library]).stdout
            let owner: String = direct.isEmpty ? merged : direct
            let package = try XCTUnwrap(owner.split(separator: ":").first.map(String.init), library)
            XCTAssertTrue(installed.contains(package) || base.contains(package), "\(library) is from \(package)")
        }
        for package in ["libssl3", "libsqlite3-0", "liblz4-1", "libjemalloc2", "tzdata"] {
            XCTAssertTrue(installed.contains(package), package)
        }
    }

    func testTheSystemdUnitVerifies() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("unit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        // The unit names the installed binary; verify checks that it exists, so point it at the built one.
        let unit = try String(contentsOfFile: path("activity-relay.service"), encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/bin/activity-relay", with: RelayBinary.path)
        for line in ["NoNewPrivileges=yes", "ProtectSystem=strict", "DynamicUser=yes", "CapabilityBoundingSet="] {
            XCTAssertTrue(unit.contains(line + "\n"), line)
        }
        let good = scratch.appendingPathComponent("activity-relay.service").path
        try Data(unit.utf8).write(to: URL(fileURLWithPath: good))
        let verified = try ChildProcess.run(["systemd-analyze", "verify", good])
        XCTAssertEqual(verified.status, 0, verified.stderr)
        XCTAssertEqual(verified.stderr, "", "systemd-analyze verify finds nothing to say")
        // The check can fail: a misspelt key is reported.
        let bad = scratch.appendingPathComponent("misspelt.service").path
        try Data(unit.replacingOccurrences(of: "ProtectHome=", with: "ProtectHom=").utf8).write(
            to: URL(fileURLWithPath: bad))
        XCTAssertTrue(try ChildProcess.run(["systemd-analyze", "verify", bad]).stderr.contains("ProtectHom"))
    }
}

// MARK: - The example configs, live

extension DeployTests {
    /// Runs `arguments`, which must succeed.
    @discardableResult
    private func run(_ arguments: [String]) throws -> ChildProcess.Outcome {
        let outcome = try ChildProcess.run(arguments, timeout: 60)
        XCTAssertEqual(outcome.status, 0, "\(arguments): \(outcome.stderr)")
        return outcome
    }

    /// `curl -k` (the test's certificates are its own) of `url`: status and body.
    private func get(_ url: String, headers: [String] = []) throws -> (status: Int, body: String) {
        let outcome = try ChildProcess.run(
            ["curl", "-sk", "--max-time", "10", "-w", "\n%{http_code}"] + headers.flatMap { ["-H", $0] } + [url],
            timeout: 30)
        let lines = outcome.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    /// `example` with its addresses, data directory and key files moved into `scratch` (the key
    /// files made there), as JSON text; the metrics port when it has a metrics listener.
    private func localized(_ example: String, in scratch: String) throws -> (
        config: String, port: UInt16, metrics: UInt16?
    ) {
        var object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(example.utf8)) as? [String: Any])
        let port = try RelayBinary.freePort()
        object["listen"] = "127.0.0.1:\(port)"
        object["dataDirectory"] = scratch + "/data"
        var metricsPort: UInt16?
        if object["metrics"] != nil {
            let chosen = try RelayBinary.freePort()
            metricsPort = chosen
            object["metrics"] = ["listen": "127.0.0.1:\(chosen)"]
        }
        if var tls = object["tls"] as? [String: Any] {
            tls["certificate"] = scratch + "/cert.pem"
            tls["key"] = scratch + "/key.pem"
            try run([
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                scratch + "/key.pem", "-out", scratch + "/cert.pem", "-days", "2", "-subj", "/CN=localhost", "-addext",
                "subjectAltName=DNS:localhost",
            ])
            object["tls"] = tls
        }
        if let keys = object["providerKeys"] as? [[String: Any]] {
            object["providerKeys"] = try keys.enumerated().map { index, key in
                var key = key
                let p8 = scratch + "/key\(index).p8"
                try run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", p8])
                if key["p8Path"] != nil { key["p8Path"] = p8 }
                if key["publicKeyPath"] != nil {
                    key["publicKeyPath"] = scratch + "/key\(index).pub.pem"
                    try run(["openssl", "pkey", "-in", p8, "-pubout", "-out", scratch + "/key\(index).pub.pem"])
                }
                return key
            }
        }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        return (String(decoding: data, as: UTF8.self), port, metricsPort)
    }

    func testTheBinaryStartsWithEveryExampleConfig() throws {
        let configMap = try yaml(["kubernetes/configmap.yaml"])
        let examples: [(String, String)] = [
            ("relay.example.json", try String(contentsOfFile: path("relay.example.json"), encoding: .utf8)),
            ("container/relay.json", try String(contentsOfFile: path("container/relay.json"), encoding: .utf8)),
            (
                "kubernetes/configmap.yaml",
                try XCTUnwrap(dig(configMap.first?.document, "data", "relay.json") as? String)
            ),
        ]
        for (name, example) in examples {
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("example-\(UUID().uuidString)")
                .path
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            let (config, port, metricsPort) = try localized(example, in: scratch)
            let file = scratch + "/relay.json"
            try Data(config.utf8).write(to: URL(fileURLWithPath: file))
            let check = try ChildProcess.run([RelayBinary.path, "check-config", file])
            XCTAssertEqual(check.status, 0, "\(name): \(check.stderr)")

            let relay = try ChildProcess([RelayBinary.path, "serve", "--config", file])
            var health = (status: 0, body: "")
            let deadline = Date().addingTimeInterval(20)
            while health.status != 200, Date() < deadline, relay.isRunning {
                usleep(100_000)
                health = try get("https://localhost:\(port)/healthz")
            }
            XCTAssertEqual(health.status, 200, "\(name): the relay answers /healthz")
            // /metrics: the admin key on the main listener, nothing on the metrics listener.
            XCTAssertEqual(try get("https://localhost:\(port)/metrics").status, 401, name)
            let admin = try String(contentsOfFile: scratch + "/data/admin-key", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let scraped = try get("https://localhost:\(port)/metrics", headers: ["authorization: Bearer \(admin)"])
            XCTAssertEqual(scraped.status, 200, name)
            XCTAssertTrue(scraped.body.contains("relay_build_info{"), name)
            if let metricsPort {
                let open = try get("https://localhost:\(metricsPort)/metrics")
                XCTAssertEqual(open.status, 200, name)
                XCTAssertTrue(open.body.contains("relay_http_requests_total{surface=\"metrics\""), name)
                XCTAssertEqual(try get("https://localhost:\(metricsPort)/healthz").status, 404, "only /metrics there")
            }
            kill(relay.processIdentifier, SIGTERM)
            let outcome = try relay.wait(timeout: 30)
            XCTAssertEqual(outcome.status, 0, "\(name): \(outcome.stderr)")
            XCTAssertFalse(outcome.stderr.contains(admin), "\(name): the admin key is never logged")
            if example.contains(#""logFormat": "json""#) {
                let lines = outcome.stderr.split(separator: "\n")
                XCTAssertTrue(lines.contains { $0.contains(#""event":"relay.listening""#) }, outcome.stderr)
                for line in lines {
                    XCTAssertNotNil(
                        try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                        "\(name): not a JSON line: \(line)")
                }
            }
        }
    }
}
