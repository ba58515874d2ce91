import RelayCore
import RelayServer
import XCTest

final class RelayConfigurationFileTests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws { scratch = try ScratchDirectory() }
    override func tearDown() { scratch.remove() }

    private func parse(file text: String, _ flags: [String] = [], name: String = "relay.json") throws
        -> RelayConfiguration
    {
        try scratch.write(name, text)
        return try RelayConfiguration.parse(arguments: ["--config", name] + flags, workingDirectory: scratch.path)
    }

    func testFaultsSetRulesFromTheStartAndBadRulesNameTheirPath() throws {
        let configuration = try parse(
            file:
                #"{"faults": {"seed": 7, "rules": [{"kind": "error", "status": 503, "count": 2}, {"kind": "reset"}]}}"#)
        XCTAssertEqual(configuration.faults.seed, 7)
        let injector = configuration.faults.injector()
        XCTAssertTrue(injector.appliesToPushes)
        XCTAssertEqual(injector.json["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue }, ["f1", "f2"])
        XCTAssertEqual(injector.json["items"]?.arrayValue?.first?["seed"], 7)
        XCTAssertFalse(try parse(file: "{}").faults.injector().appliesToPushes)
        let cases = [
            (
                #"{"faults": {"rules": [{"kind": "error", "status": 503}, {"kind": "error", "status": 99}]}}"#,
                "faults.rules[1].status: must be from 400 to 599 (found number 99)"
            ),
            (
                #"{"faults": {"rule": []}}"#,
                "faults.rule: is not a known key (known: rules, seed) (found array of 0)"
            ),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try parse(file: text)) { error in
                XCTAssertEqual((error as? ConfigurationError)?.message, message, text)
            }
        }
    }

    func testFileSetsEveryOptionAndResolvesPathsAgainstItsDirectory() throws {
        let configuration = try parse(
            file: """
                {"listen": "0.0.0.0:9443", "dataDirectory": "state", "clock": "virtual", "threads": 2,
                 "logLevel": "debug", "tls": {"certificate": "certs/chain.pem", "key": "/etc/key.pem"},
                 "providerKeys": [
                   {"teamId": "ABCDE12345", "keyId": "KEY1234567", "p8Path": "keys/a.p8", "bundleIds": ["com.example.app", "com.example.b"]},
                   {"teamId": "ABCDE12345", "keyId": "PUB7654321", "publicKeyPath": "keys/b.pem", "bundleIds": ["*"]}],
                 "rules": {"updateBudgetPerHour": 3, "strictBudget": true},
                 "http": {"handshakeTimeout": 2.5, "idleTimeout": 60, "headerReadTimeout": 4, "maxConnections": 50,
                          "maxConcurrentStreams": 7, "maxHeaderListSize": 2048, "maxBodyBytes": 8192,
                          "firstRequestTimeout": 3, "maxConnectionsPerAddress": 5, "sendTimeout": 6,
                          "maxQueuedResponseBytes": 100000, "maxQueuedResponseBytesTotal": 2000000},
                 "retention": {"events": 500, "pushes": 40}, "durability": {"syncEachCommit": true, "syncInterval": 0.25},
                 "stream": {"bufferBytes": 8192, "heartbeatSeconds": 1.5, "ticketLifetime": 30},
                 "providerRefusalLimit": 0, "broadcastBundleIds": ["com.example.app"], "healthListen": "127.0.0.1:9444"}
                """, name: "conf/relay.json")
        let directory = scratch.path + "/conf"
        XCTAssertEqual(configuration.configFile, "conf/relay.json")
        XCTAssertEqual(configuration.listen, ListenAddress(host: "0.0.0.0", port: 9443))
        XCTAssertEqual(configuration.healthListen, ListenAddress(host: "127.0.0.1", port: 9444))
        XCTAssertEqual(configuration.dataDirectory, directory + "/state")
        XCTAssertEqual(configuration.clock, .virtual)
        XCTAssertEqual(configuration.threads, 2)
        XCTAssertEqual(configuration.providerRefusalLimit, 0)
        XCTAssertEqual(configuration.broadcastBundleIDs, .only(["com.example.app"]))
        XCTAssertEqual(configuration.logLevel, .debug)
        XCTAssertEqual(
            configuration.tls, TLSFiles(certificatePath: directory + "/certs/chain.pem", privateKeyPath: "/etc/key.pem")
        )
        XCTAssertEqual(configuration.certificatePath, directory + "/certs/chain.pem")
        XCTAssertEqual(
            configuration.providerKeys,
            [
                ProviderKeyConfiguration(
                    teamID: "ABCDE12345", keyID: "KEY1234567", keyFile: .privateKey(path: directory + "/keys/a.p8"),
                    bundleIDs: .only(["com.example.app", "com.example.b"]), origin: "providerKeys[0]"),
                ProviderKeyConfiguration(
                    teamID: "ABCDE12345", keyID: "PUB7654321", keyFile: .publicKey(path: directory + "/keys/b.pem"),
                    bundleIDs: .any, origin: "providerKeys[1]"),
            ])
        var rules = RelayRules()
        rules.updateBudgetPerHour = 3
        rules.strictBudget = true
        XCTAssertEqual(configuration.rules, rules)
        XCTAssertEqual(configuration.http.handshakeTimeout, 2.5)
        XCTAssertEqual(configuration.http.idleTimeout, 60)
        XCTAssertEqual(configuration.http.headerReadTimeout, 4)
        XCTAssertEqual(configuration.http.maxConnections, 50)
        XCTAssertEqual(configuration.http.maxConcurrentStreams, 7)
        XCTAssertEqual(configuration.http.maxHeaderListSize, 2048)
        XCTAssertEqual(configuration.http.maxBodyBytes, 8192)
        XCTAssertEqual(configuration.http.serverLimits.maxConnections, 50)
        XCTAssertEqual(configuration.http.firstRequestTimeout, 3)
        XCTAssertEqual(configuration.http.sendTimeout, 6)
        XCTAssertEqual(configuration.http.maxQueuedResponseBytes, 100_000)
        XCTAssertEqual(configuration.http.maxQueuedResponseBytesTotal, 2_000_000)
        XCTAssertEqual(configuration.http.serverLimits.maxConnectionsPerAddress, 5)
        XCTAssertEqual(configuration.http.serverLimits.handshakeTimeout, 2.5)
        XCTAssertEqual(configuration.http.http2Configuration.maxConcurrentStreams, 7)
        XCTAssertEqual(configuration.http.http2Configuration.maxRequestBodyBytes, 8192)
        XCTAssertEqual(configuration.retention.events, 500)
        XCTAssertEqual(configuration.retention.pushes, 40)
        XCTAssertTrue(configuration.durability.syncEachCommit)
        XCTAssertEqual(configuration.durability.syncInterval, 0.25)
        XCTAssertEqual(configuration.durability.storeDurability, .syncEachCommit)
        XCTAssertEqual(configuration.durability.description, "each-commit")
        XCTAssertEqual(configuration.stream.bufferBytes, 8192)
        XCTAssertEqual(configuration.stream.heartbeatInterval, 1.5)
        XCTAssertEqual(configuration.stream.ticketLifetime, 30)
    }

    func testFlagsOverrideTheFileAndNullsKeepDefaults() throws {
        let configuration = try parse(
            file: #"{"listen": "10.0.0.1:1", "clock": "virtual", "threads": null, "dataDirectory": "/from/file"}"#,
            ["--listen", "127.0.0.1:2", "--data", "flagdir", "--clock", "system"])
        XCTAssertEqual(configuration.listen.port, 2)
        XCTAssertEqual(configuration.clock, .system)
        XCTAssertEqual(configuration.dataDirectory, scratch.path + "/flagdir")
        XCTAssertEqual(configuration.threads, RelayConfiguration.defaultThreads)
    }

    func testTheDeployExampleParses() throws {
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../deploy/relay.example.json").standardized.path
        let configuration = try RelayConfiguration.parse(arguments: ["--config", example], workingDirectory: "/")
        XCTAssertEqual(configuration.listen.description, "0.0.0.0:8443")
        XCTAssertEqual(configuration.healthListen?.description, "127.0.0.1:8444")
        XCTAssertEqual(configuration.dataDirectory, "/var/lib/activity-relay")
        XCTAssertEqual(configuration.providerKeys.count, 2)
        XCTAssertEqual(configuration.rules, .defaults)
        XCTAssertEqual(configuration.http, HTTPLimits())
        XCTAssertEqual(configuration.stream, StreamSettings())
        XCTAssertEqual(configuration.retention, LogRetention())
        XCTAssertEqual(configuration.durability, DurabilitySettings())
        XCTAssertEqual(configuration.providerRefusalLimit, ProviderRoutes.defaultRefusalLimit)
        XCTAssertEqual(configuration.broadcastBundleIDs, .any)
    }

    func testBadFilesAreOneLineErrorsNamingFileKeyAndValue() throws {
        let keyID = "1 to 64 ASCII letters and digits (Apple's are 10)"
        func key(_ members: String) -> String {
            #"{"providerKeys": [{"teamId": "T1", "keyId": "K1", "# + members + "}]}"
        }
        let table: [(String, String)] = [
            ("[1]", "value: must be an object (found array of 1)"),
            (
                #"{"listen": "localhost:99999"}"#,
                #"listen: must be HOST:PORT with a port 0-65535 and HOST an IPv4 literal, [IPv6] literal or localhost (found string "localhost:99999")"#
            ),
            (
                #"{"listen": 8443}"#,
                "listen: must be HOST:PORT with a port 0-65535 and HOST an IPv4 literal, [IPv6] literal or localhost (found number 8443)"
            ),
            (#"{"dataDirectory": ""}"#, #"dataDirectory: must be a directory path (found string "")"#),
            (#"{"dataDirectory": 5}"#, "dataDirectory: must be a string (found number 5)"),
            (#"{"clock": "fast"}"#, #"clock: must be system or virtual (found string "fast")"#),
            (#"{"threads": 0}"#, "threads: must be a whole number from 1 to 256 (found number 0)"),
            (#"{"threads": 1.5}"#, "threads: must be a whole number from 1 to 256 (found number 1.5)"),
            (#"{"logLevel": "loud"}"#, #"logLevel: must be error, warning, info or debug (found string "loud")"#),
            (
                #"{"tls": {"certificate": "c.pem"}}"#,
                "tls.key: is required (the path of the certificate's PEM private key) (missing)"
            ),
            (
                #"{"tls": {"certificate": "c.pem", "key": "k.pem", "ca": "x"}}"#,
                #"tls.ca: is not a known key (known: certificate, key) (found string "x")"#
            ),
            (
                #"{"rules": {"updateBudgetPerHour": -3}}"#,
                "rules.updateBudgetPerHour: must be a whole number from 1 to 1000000 (found number -3)"
            ),
            (
                #"{"rules": {"budget": 1}}"#,
                "rules.budget: is not a known key (known: activeLifetime, dismissalWindow, frequentUpdateBudgetPerHour, lowPriorityDelay, maxActivityDataBytes, maxVisibleLifetime, providerTokenRefreshInterval, pushToStartBudget, strictBudget, tokenBurst, updateBudgetPerHour) (found number 1)"
            ),
            (
                #"{"http": {"maxConnections": 0}}"#,
                "http.maxConnections: must be a whole number from 1 to 1000000 (found number 0)"
            ),
            (
                #"{"http": {"idleTimeout": 0}}"#,
                "http.idleTimeout: must be seconds above 0 and at most 604800 (found number 0)"
            ),
            (
                #"{"http": {"handshakeTimeout": "10s"}}"#,
                #"http.handshakeTimeout: must be seconds above 0 and at most 300 (found string "10s")"#
            ),
            (
                #"{"http": {"maxBodyBytes": 100}}"#,
                "http.maxBodyBytes: must be a whole number from 5120 to 16777216 (found number 100)"
            ),
            (#"{"http": 3}"#, "http: must be an object (found number 3)"),
            (
                #"{"retention": {"events": "many"}}"#,
                #"retention.events: must be a whole number from 1 to 100000000 (found string "many")"#
            ),
            (
                #"{"durability": {"syncEachCommit": "yes"}}"#,
                #"durability.syncEachCommit: must be true or false (found string "yes")"#
            ),
            (
                #"{"durability": {"syncInterval": 0}}"#,
                "durability.syncInterval: must be seconds above 0 and at most 60 (found number 0)"
            ),
            (
                #"{"store": {"redisCluster": {"seeds": []}}}"#,
                "store.redisCluster.seeds: must list at least one host:port (a port from 1 to 65535) (found array of 0)"
            ),
            (
                #"{"store": {"redisCluster": {"seeds": ["redis:0"]}}}"#,
                "store.redisCluster.seeds: every seed must be host:port (a port from 1 to 65535) (found array of 1)"
            ),
            (
                #"{"store": {"redisCluster": {"seeds": ["redis:7000"], "serverName": "redis"}}}"#,
                #"store.redisCluster.serverName: is needed only with caFile (TLS) (found string "redis")"#
            ),
            (
                #"{"store": {"redisCluster": {"seeds": ["redis:7000"], "fleetStream": "no"}}}"#,
                #"store.redisCluster.fleetStream: must be true or false (found string "no")"#
            ),
            (
                #"{"store": {"sqlite": {}}}"#,
                "store.sqlite: is not a known key (known: redisCluster) (found object of 0 keys)"
            ),
            (
                #"{"durability": {"replicas": 17}}"#,
                "durability.replicas: must be a whole number from 0 to 16 (found number 17)"
            ),
            (
                #"{"durability": {"fsync": true}}"#,
                "durability.fsync: is not a known key (known: replicaTimeout, replicas, syncEachCommit, syncInterval) (found boolean true)"
            ),
            (
                #"{"stream": {"heartbeatSeconds": -1}}"#,
                "stream.heartbeatSeconds: must be seconds above 0 and at most 3600 (found number -1)"
            ),
            (
                #"{"stream": {"bufferBytes": 10}}"#,
                "stream.bufferBytes: must be a whole number from 4096 to 268435456 (found number 10)"
            ),
            (
                #"{"providerRefusalLimit": -1}"#,
                "providerRefusalLimit: must be a whole number from 0 to 1000000 (found number -1)"
            ),
            (
                #"{"broadcastBundleIds": []}"#,
                "broadcastBundleIds: must be a non-empty list of bundle IDs, or [\"*\"] for any (found array of 0)"
            ),
            (
                #"{"broadcastBundleIds": ["com.example.app", "bad id"]}"#,
                "broadcastBundleIds[1]: must be a bundle ID (letters, digits, '-' and '.', no empty components) (found string \"bad id\")"
            ),
            (#"{"providerKeys": {}}"#, "providerKeys: must be an array (found object of 0 keys)"),
            (#"{"providerKeys": [1]}"#, "providerKeys[0]: must be an object (found number 1)"),
            (
                #"{"providerKeys": [{"keyId": "K1", "p8Path": "a.p8", "bundleIds": ["*"]}]}"#,
                "providerKeys[0].teamId: is required (\(keyID)) (missing)"
            ),
            (
                #"{"providerKeys": [{"teamId": "T1", "keyId": "K-1", "p8Path": "a.p8", "bundleIds": ["*"]}]}"#,
                #"providerKeys[0].keyId: must be \#(keyID) (found string "K-1")"#
            ),
            (
                key(#""p8Path": "a.p8", "publicKeyPath": "a.pem", "bundleIds": ["*"]"#),
                #"providerKeys[0].publicKeyPath: cannot be given together with p8Path; give one of them (found string "a.pem")"#
            ),
            (
                key(#""bundleIds": ["*"]"#),
                "providerKeys[0]: needs p8Path (the .p8 private key) or publicKeyPath (its public key PEM), a non-empty path (missing)"
            ),
            (
                key(#""p8Path": "a.p8""#),
                #"providerKeys[0].bundleIds: is required (bundle IDs this key may push to, or ["*"] for any) (missing)"#
            ),
            (
                key(#""p8Path": "a.p8", "bundleIds": []"#),
                #"providerKeys[0].bundleIds: must be a non-empty list of bundle IDs, or ["*"] for any (found array of 0)"#
            ),
            (
                key(#""p8Path": "a.p8", "bundleIds": ["com.a", "*"]"#),
                #"providerKeys[0].bundleIds[1]: "*" (any bundle ID) must stand alone (found string "*")"#
            ),
            (
                key(#""p8Path": "a.p8", "bundleIds": ["com..a"]"#),
                #"providerKeys[0].bundleIds[0]: must be a bundle ID (letters, digits, '-' and '.', no empty components) (found string "com..a")"#
            ),
            (
                key(#""p8Path": "a.p8", "bundleIds": "com.a""#),
                #"providerKeys[0].bundleIds: must be an array (found string "com.a")"#
            ),
            (
                key(#""p8Path": "a.p8", "bundleIds": ["*"], "topics": 1"#),
                "providerKeys[0].topics: is not a known key (known: bundleIds, keyId, p8Path, publicKeyPath, teamId) (found number 1)"
            ),
            (
                #"{"providerKeys": [{"teamId": "T", "keyId": "DEVKEY0000", "p8Path": "a", "bundleIds": ["*"]}]}"#,
                #"providerKeys[0].keyId: is the development key's ID; choose another (found string "DEVKEY0000")"#
            ),
            (
                #"{"providerKeys": [{"teamId": "T", "keyId": "K", "p8Path": "a", "bundleIds": ["*"]}, "#
                    + #"{"teamId": "U", "keyId": "K", "publicKeyPath": "b", "bundleIds": ["*"]}]}"#,
                #"providerKeys[1].keyId: is already used by providerKeys[0] (found string "K")"#
            ),
        ]
        for (text, expected) in table {
            XCTAssertThrowsError(try parse(file: text), text) { error in
                XCTAssertEqual((error as? ConfigurationError)?.description, "relay.json: " + expected, text)
            }
        }
    }

    func testUnknownTopLevelKeyListsTheKnownOnes() throws {
        XCTAssertThrowsError(try parse(file: #"{"port": 8443}"#)) { error in
            XCTAssertEqual(
                (error as? ConfigurationError)?.description,
                "relay.json: port: is not a known key (known: broadcastBundleIds, clock, console, dataDirectory, durability, faults, healthListen, http, listen, logFormat, logLevel, metrics, "
                    + "providerKeys, providerRefusalLimit, retention, rules, store, stream, threads, tls) (found number 8443)"
            )
        }
    }

    func testUnreadableOrInvalidFilesNameTheFile() throws {
        XCTAssertThrowsError(
            try RelayConfiguration.parse(arguments: ["--config", "missing.json"], workingDirectory: scratch.path)
        ) {
            XCTAssertEqual(
                ($0 as? ConfigurationError)?.description,
                "missing.json: cannot read \(self.scratch.path)/missing.json: No such file or directory")
        }
        XCTAssertThrowsError(try parse(file: #"{"listen" "x"}"#)) {
            XCTAssertEqual(
                ($0 as? ConfigurationError)?.description,
                "relay.json: not valid JSON: expected ':' after object key, found '\"' at byte 10")
        }
        XCTAssertThrowsError(try parse(file: String(repeating: " ", count: (1 << 20) + 1))) {
            XCTAssertEqual(
                ($0 as? ConfigurationError)?.description,
                "relay.json: cannot read \(self.scratch.path)/relay.json: larger than 1048576 bytes")
        }
    }
}
