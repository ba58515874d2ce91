import RelayServer
import XCTest

final class RelayConfigurationArgumentsTests: XCTestCase {
    let base = "/srv/work"

    private func parse(_ arguments: [String]) throws -> RelayConfiguration {
        try RelayConfiguration.parse(arguments: arguments, workingDirectory: base)
    }

    func testNoArgumentsGiveTheContractDefaults() throws {
        let configuration = try parse([])
        XCTAssertEqual(configuration.listen, ListenAddress(host: "127.0.0.1", port: 8443))
        XCTAssertEqual(configuration.listen.description, "127.0.0.1:8443")
        XCTAssertEqual(configuration.dataDirectory, "/srv/work/.relay")
        XCTAssertEqual(configuration.clock, .system)
        XCTAssertEqual(configuration.threads, RelayConfiguration.defaultThreads)
        XCTAssertGreaterThanOrEqual(configuration.threads, 1)
        XCTAssertNil(configuration.tls)
        XCTAssertEqual(configuration.certificatePath, "/srv/work/.relay/tls-cert.pem")
        XCTAssertEqual(configuration.privateKeyPath, "/srv/work/.relay/tls-key.pem")
        XCTAssertEqual(configuration.providerKeys, [])
        XCTAssertEqual(configuration.rules, .defaults)
        XCTAssertEqual(configuration.http, HTTPLimits())
        XCTAssertEqual(configuration.retention.events, 100_000)
        XCTAssertEqual(configuration.retention.pushes, 10_000)
        XCTAssertFalse(configuration.durability.syncEachCommit)
        XCTAssertEqual(configuration.durability.syncInterval, 0.1)
        XCTAssertEqual(configuration.durability.storeDurability, .syncPeriodically(.milliseconds(100)))
        XCTAssertEqual(configuration.durability.description, "every-0.1s")
        XCTAssertEqual(configuration.stream.bufferBytes, 1 << 20)
        XCTAssertEqual(configuration.stream.heartbeatInterval, 15)
        XCTAssertEqual(configuration.stream.ticketLifetime, 60)
        XCTAssertEqual(configuration.logLevel, .info)
        XCTAssertNil(configuration.configFile)
    }

    func testFlagsSetTheirOptions() throws {
        let configuration = try parse([
            "--listen", "[::1]:9000", "--data", "state/../x", "--clock=virtual", "--threads", "3",
        ])
        XCTAssertEqual(configuration.listen, ListenAddress(host: "::1", port: 9000))
        XCTAssertEqual(configuration.listen.description, "[::1]:9000")
        XCTAssertEqual(configuration.dataDirectory, "/srv/work/state/../x")
        XCTAssertEqual(configuration.clock, .virtual)
        XCTAssertEqual(configuration.threads, 3)
        XCTAssertEqual(try parse(["--data", "/abs//dir/./"]).dataDirectory, "/abs/dir")
    }

    func testListenAcceptsLiteralsLocalhostAndPortZero() throws {
        let table: [(String, String, UInt16, String)] = [
            ("0.0.0.0:0", "0.0.0.0", 0, "localhost"),
            ("localhost:65535", "localhost", 65535, "localhost"),
            ("[::]:443", "::", 443, "localhost"),
            ("10.1.2.3:8443", "10.1.2.3", 8443, "10.1.2.3"),
            ("[fe80::1]:1", "fe80::1", 1, "[fe80::1]"),
        ]
        for (text, host, port, clientHost) in table {
            let listen = try parse(["--listen", text]).listen
            XCTAssertEqual(listen.host, host, text)
            XCTAssertEqual(listen.port, port, text)
            XCTAssertEqual(listen.clientHost, clientHost, text)
        }
    }

    func testBadArgumentsAreOneLineErrorsNamingTheValue() {
        let listen = "is not HOST:PORT with a port 0-65535 and HOST an IPv4 literal, [IPv6] literal or localhost"
        let usage =
            "(usage: serve [--config FILE] [--listen HOST:PORT] [--data DIR] [--clock system|virtual] [--threads N] "
            + "[--log-format text|json] [--redis-cluster HOST:PORT,...])"
        let table: [([String], String)] = [
            (
                ["--redis-cluster", "127.0.0.1:7000,redis"],
                "--redis-cluster: '127.0.0.1:7000,redis' is not a comma-separated list of host:port (a port from 1 to 65535)"
            ),
            (["--listen", "localhost:99999"], "--listen: 'localhost:99999' \(listen)"),
            (["--listen", "example.com:80"], "--listen: 'example.com:80' \(listen)"),
            (["--listen", "::1:8443"], "--listen: '::1:8443' \(listen)"),
            (["--listen", "[127.0.0.1]:80"], "--listen: '[127.0.0.1]:80' \(listen)"),
            (["--listen", "8443"], "--listen: '8443' \(listen)"),
            (["--listen", "127.0.0.1:"], "--listen: '127.0.0.1:' \(listen)"),
            (["--listen", "127.0.0.1:+80"], "--listen: '127.0.0.1:+80' \(listen)"),
            (["--listen", ":80"], "--listen: ':80' \(listen)"),
            (["--listen", "a\nb:1"], "--listen: 'a\\nb:1' \(listen)"),
            (["--clock", "fast"], "--clock: 'fast' is not system or virtual"),
            (["--threads", "0"], "--threads: '0' is not a whole number from 1 to 256"),
            (["--threads", "257"], "--threads: '257' is not a whole number from 1 to 256"),
            (["--threads", "four"], "--threads: 'four' is not a whole number from 1 to 256"),
            (["--data", ""], "--data: needs a directory path"),
            (["--config", ""], "--config: needs a file path"),
            (["--verbose"], "activity-relay serve: unknown option '--verbose' \(usage)"),
            (["-l", "x"], "activity-relay serve: unexpected argument '-l' \(usage)"),
            (["serve"], "activity-relay serve: unexpected argument 'serve' \(usage)"),
            (["--listen"], "--listen: needs a value \(usage)"),
            (["--listen", "--clock", "system"], "--listen: needs a value \(usage)"),
            (["--clock", "system", "--clock=virtual"], "--clock: is given more than once"),
        ]
        for (arguments, expected) in table {
            XCTAssertThrowsError(try parse(arguments), "\(arguments)") { error in
                XCTAssertEqual((error as? ConfigurationError)?.description, expected)
                XCTAssertFalse("\(error)".contains("\n"))
            }
        }
    }

    func testTokenAcceptsOnlyData() throws {
        XCTAssertEqual(
            try RelayConfiguration.parseToken(arguments: [], workingDirectory: base).dataDirectory, "/srv/work/.relay")
        XCTAssertEqual(
            try RelayConfiguration.parseToken(arguments: ["--data=/var/lib/relay"], workingDirectory: base)
                .dataDirectory,
            "/var/lib/relay")
        XCTAssertThrowsError(
            try RelayConfiguration.parseToken(arguments: ["--listen", "1.2.3.4:5"], workingDirectory: base)
        ) {
            XCTAssertEqual(
                ($0 as? ConfigurationError)?.description,
                "activity-relay token: unknown option '--listen' (usage: token [--data DIR])")
        }
    }
}
