import Foundation
import RelayServer
import RelayTestKit
import XCTest

/// `activity-relay serve`, `token` and `simulate` as a user runs them.
final class CommandLineTests: XCTestCase {
    func testServeCreatesItsDataDirAnswersAndStopsCleanlyOnSIGTERM() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let port = try RelayBinary.freePort()
        let relay = try RelayBinary.serve(data: data, port: port)
        for name in ["tls-cert.pem", "tls-key.pem", "admin-key", "dev-provider-key.p8", "relay.sqlite"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: data + "/" + name), name)
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: data + "/admin-key")
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let token = try ChildProcess.run([RelayBinary.path, "token", "--data", data])
        XCTAssertEqual(token.status, 0)
        XCTAssertEqual(token.stdout.split(separator: ".").count, 3, "a JWT has three parts")
        // The executable links jemalloc, and its malloc is the one the process uses.
        // (Read with cat: a /proc file reports no size, and Foundation reads it as empty.)
        let maps = try ChildProcess.run(["cat", "/proc/\(relay.processIdentifier)/maps"])
        XCTAssertTrue(maps.stdout.contains("libjemalloc"), "jemalloc is mapped into the relay")
        kill(relay.processIdentifier, SIGTERM)
        let outcome = try relay.wait(timeout: 20)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("relay.listening"), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("allocator=\"jemalloc 5."), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains(" sync=every-0.1s"), "the default durability: \(outcome.stderr)")
        XCTAssertTrue(outcome.stderr.contains("curl --cacert"), "startup says how to reach it")
        XCTAssertTrue(outcome.stderr.contains("relay.stopped"), outcome.stderr)
    }

    /// Runs `activity-relay serve --config` with `config`, sends `requests` on one connection
    /// with Python `h2` (waiting up to `waitGoaway` seconds for a GOAWAY when given) and returns
    /// what came back.
    private func serveAndSend(
        config text: String, waitGoaway: Double? = nil, _ requests: (_ jwt: String) -> [H2Request]
    ) throws -> H2Result {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: data) }
        let config = data + "/relay.json"
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        let port = try RelayBinary.freePort()
        let relay = try RelayBinary.serve(data: data + "/state", port: port, extra: ["--config", config])
        defer {
            kill(relay.processIdentifier, SIGTERM)
            _ = try? relay.wait(timeout: 20)
        }
        let token = try ChildProcess.run([RelayBinary.path, "token", "--data", data + "/state"])
        let jwt = token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        var connection: [String: Any] = ["requests": requests(jwt).map(\.json)]
        if let waitGoaway { connection["waitGoaway"] = waitGoaway }
        let input = data + "/input.json"
        try JSONSerialization.data(withJSONObject: ["connections": [connection]]).write(to: URL(fileURLWithPath: input))
        let outcome = try ChildProcess.run(
            [
                "python3", Fixtures.path("provider_h2.py"), "--port", String(port), "--cafile",
                data + "/state/tls-cert.pem", "--input", input,
            ], timeout: 60)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let results = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]])
        return try XCTUnwrap(results.first.map(H2Result.init))
    }

    /// The config file's `providerRefusalLimit` reaches the provider API: with 1, the first
    /// refused push closes its connection with GOAWAY carrying the reason (seen by Python `h2`).
    func testConfigFileRefusalLimitClosesTheConnection() throws {
        let result = try serveAndSend(config: #"{"providerRefusalLimit": 1}"#, waitGoaway: 5) { jwt in
            [
                H2Request(
                    path: "/3/device/" + String(repeating: "0f", count: 32),
                    headers: [
                        ("apns-topic", "com.example.app.push-type.liveactivity"), ("apns-push-type", "liveactivity"),
                        ("authorization", "bearer \(jwt)"),
                    ],
                    body: #"{"aps":{"event":"update","timestamp":1,"content-state":{}}}"#)
            ]
        }
        XCTAssertEqual(result.answers.map(\.status), [400])
        XCTAssertEqual(result.goaway?.data, #"{"reason":"BadDeviceToken"}"#)
    }

    /// The config file's `broadcastBundleIds` reaches the provider API: channels of any other app
    /// are `400 FeatureNotEnabled`, those of a listed app are created.
    func testConfigFileBroadcastBundleIDsGateChannels() throws {
        let result = try serveAndSend(config: #"{"broadcastBundleIds": ["com.example.live"]}"#) { jwt in
            ["com.example.app", "com.example.live"].map { bundle in
                H2Request(
                    method: "POST", path: "/1/apps/\(bundle)/channels", headers: [("authorization", "bearer \(jwt)")],
                    body: #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#)
            }
        }
        XCTAssertEqual(result.answers.map(\.status), [400, 201])
        XCTAssertEqual(result.answers.first?.reason, "FeatureNotEnabled")
    }

    func testBadFlagsAreOneLineAndExitStatus2() throws {
        for arguments in [
            ["--listen", "nope"], ["--threads", "0"], ["--clock", "sundial"], ["--bogus"], ["--log-format", "xml"],
        ] {
            let outcome = try ChildProcess.run([RelayBinary.path, "serve"] + arguments)
            XCTAssertEqual(outcome.status, 2, arguments.joined(separator: " "))
            XCTAssertEqual(outcome.stderr.split(separator: "\n").count, 1, outcome.stderr)
        }
    }

    func testEveryCommandsHelpIsItsUsageOnStdoutAndExitStatus0() throws {
        for (command, usage) in [
            ("serve", "usage: activity-relay serve [--config FILE]"), ("simulate", "usage: activity-relay simulate"),
            ("token", "usage: activity-relay token"), ("watch", "usage: activity-relay watch"),
            ("check-config", "usage: activity-relay check-config FILE"),
        ] {
            for flag in ["--help", "-h"] {
                let outcome = try ChildProcess.run([RelayBinary.path, command, flag])
                XCTAssertEqual(outcome.status, 0, "\(command) \(flag): \(outcome.stderr)")
                XCTAssertTrue(outcome.stdout.hasPrefix(usage), "\(command) \(flag): \(outcome.stdout)")
                XCTAssertEqual(outcome.stderr, "", "\(command) \(flag)")
            }
        }
        let top = try ChildProcess.run([RelayBinary.path, "--help"])
        XCTAssertEqual(top.status, 0)
        XCTAssertTrue(top.stdout.contains("simulate SCENARIO.json"), top.stdout)
        // watch's help explains every option, not only its usage line.
        let watch = try ChildProcess.run([RelayBinary.path, "watch", "--help"])
        for flag in ["--url URL", "--data DIR", "--key KEY", "--device ID", "--cacert PATH", "--once"] {
            XCTAssertTrue(watch.stdout.contains("\n  " + flag + " "), "\(flag): \(watch.stdout)")
        }
        XCTAssertTrue(top.stdout.contains("--version"), top.stdout)
    }

    func testVersionPrintsTheReleaseAndStoreSchema() throws {
        let outcome = try ChildProcess.run([RelayBinary.path, "--version"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(
            outcome.stdout, "activity-relay \(RelayVersion.current) (store schema \(RelayVersion.storeSchema))\n")
    }

    /// A config that fails to load (a provider key or TLS file it names is missing) is refused
    /// before a new data directory is made, or the one made is removed.
    func testAConfigThatFailsToLoadLeavesNoNewDataDirectory() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cfg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let configs = [
            #"{"providerKeys": [{"teamId": "ABCDE12345", "keyId": "KEY1234567", "p8Path": "missing.p8", "bundleIds": ["*"]}]}"#,
            #"{"tls": {"certificate": "missing-cert.pem", "key": "missing-key.pem"}}"#,
        ]
        for (index, config) in configs.enumerated() {
            let file = scratch + "/relay-\(index).json"
            try config.write(toFile: file, atomically: true, encoding: .utf8)
            let data = scratch + "/data-\(index)"
            let outcome = try ChildProcess.run(
                [RelayBinary.path, "serve", "--config", file, "--data", data, "--listen", "127.0.0.1:0"], timeout: 30)
            XCTAssertEqual(outcome.status, 2, outcome.stderr)
            XCTAssertTrue(outcome.stderr.contains("missing"), outcome.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: data), "\(config) left \(data)")
        }
    }

    func testCheckConfigExitsZeroOrNamesEveryProblemWithItsPath() throws {
        let example = Fixtures.repositoryRoot.appendingPathComponent("deploy/relay.example.json").path
        let good = try ChildProcess.run([RelayBinary.path, "check-config", example])
        XCTAssertEqual(good.status, 0, good.stderr)
        XCTAssertEqual(good.stdout, example + ": ok\n")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"listen": "nope", "http": {"maxConnections": 0}, "logFormat": 1, "stream": []}"#.utf8).write(
            to: file)
        let bad = try ChildProcess.run([RelayBinary.path, "check-config", file.path])
        XCTAssertEqual(bad.status, 2)
        XCTAssertEqual(
            bad.stderr.split(separator: "\n").map { $0.dropFirst(file.path.count + 2).prefix { $0 != ":" } },
            ["listen", "logFormat", "http.maxConnections", "stream"], bad.stderr)
        for arguments in [[], ["a.json", "b.json"]] {
            XCTAssertEqual(try ChildProcess.run([RelayBinary.path, "check-config"] + arguments).status, 2)
        }
    }

    func testLogFormatJSONMakesEveryLineAJSONObject() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("json-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let relay = try RelayBinary.serve(
            data: data, port: try RelayBinary.freePort(), extra: ["--log-format", "json"])
        kill(relay.processIdentifier, SIGTERM)
        let outcome = try relay.wait(timeout: 30)
        XCTAssertEqual(outcome.status, 0)
        let lines = outcome.stderr.split(separator: "\n")
        XCTAssertGreaterThan(lines.count, 2)
        var events: [String] = []
        for line in lines {
            let object = try XCTUnwrap(
                JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
            events.append(object["event"] as? String ?? "")
        }
        XCTAssertEqual(events.first, "relay.listening")
        XCTAssertTrue(events.contains("relay.startup"))
        XCTAssertEqual(events.last, "relay.stopped")
    }

    func testSimulatePrintsATimelineAndExitsZero() throws {
        let scenario = Fixtures.repositoryRoot.appendingPathComponent("fixtures/scenarios/kitchen-timer.json").path
        let text = try ChildProcess.run([RelayBinary.path, "simulate", scenario])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("expectations: 15 of 15 met"), text.stdout)
        let json = try ChildProcess.run([RelayBinary.path, "simulate", scenario, "--json"])
        XCTAssertEqual(json.status, 0)
        XCTAssertTrue(json.stdout.hasPrefix("{"), json.stdout)
    }

    func testMalformedScenarioIsOneLineNamingThePathAndExitStatus2() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"devices": [{"name": "phone"}], "steps": [{"at": "soon", "do": "advance"}]}"#.utf8).write(to: file)
        let outcome = try ChildProcess.run([RelayBinary.path, "simulate", file.path])
        XCTAssertEqual(outcome.status, 2)
        XCTAssertEqual(outcome.stderr.split(separator: "\n").count, 1, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("steps[0].at"), outcome.stderr)
        let notJSON = try ChildProcess.run([RelayBinary.path, "simulate", "/dev/null"])
        XCTAssertEqual(notJSON.status, 2)
        try Data("{\n  \"devices\": [{\"name\": \"phone\"}],\n  \"steps\": [,]\n}\n".utf8).write(to: file)
        let syntax = try ChildProcess.run([RelayBinary.path, "simulate", file.path])
        XCTAssertEqual(syntax.status, 2)
        XCTAssertTrue(syntax.stderr.contains("is not valid JSON: line 3, column 13: "), syntax.stderr)
    }
}
