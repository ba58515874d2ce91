import Dispatch
import RelayNet
import RelayRedis
import RelayTestKit
import XCTest

/// A real Redis Cluster (3 masters, 3 replicas) from Debian's redis-server, driven by the client.
final class RedisClusterLiveTests: XCTestCase {
    private var cluster: RedisClusterHarness!
    private var loop: EventLoop!
    private var client: RedisClusterClient!

    private func startCluster(password: String? = nil, commandTimeout: Double = 30) throws {
        cluster = try RedisClusterHarness.start(password: password)
        loop = try EventLoop(name: "redis-test")
        client = makeClient(password: password, commandTimeout: commandTimeout)
    }

    private func makeClient(password: String?, commandTimeout: Double = 30) -> RedisClusterClient {
        var options = RedisClusterClient.Options(seeds: [cluster.seeds[0]])
        options.password = password
        options.commandTimeout = commandTimeout
        return RedisClusterClient(options: options, loop: loop)
    }

    override func tearDown() {
        if let loop, let client {
            _ = try? loop.submitAndWait { client.shutdown() }
            loop.stop()
            loop.waitUntilStopped()
        }
        cluster?.stop()
        super.tearDown()
    }

    private func stats() throws -> RedisClusterClient.Stats {
        let client = client!
        return try loop.submitAndWait { client.stats }
    }

    private func bulk(_ text: String) -> RESPValue { .bulkString(Array(text.utf8)) }

    func testCommandsAcrossSlotsReachTheOwningMasterWithAuth() throws {
        try startCluster(password: "s3cret-pass")
        var owners = Set<UInt16>()
        for index in 0..<60 {
            let key = "key:\(index)"
            XCTAssertEqual(try client.call(RedisCommand(["SET", key, "value-\(index)"])), .simpleString("OK"))
            // The key lives on the master that owns its slot: read it there directly.
            let owner = try cluster.masterPort(forSlot: HashSlot.slot(of: key))
            XCTAssertEqual(try cluster.cli(owner, ["GET", key]), "value-\(index)")
            owners.insert(owner)
        }
        XCTAssertEqual(owners.count, 3, "keys spread over every master")
        XCTAssertEqual(try client.call(RedisCommand(["GET", "key:7"])), bulk("value-7"))
        XCTAssertEqual(try client.call(RedisCommand(["GET", "missing"])), .null)
        XCTAssertThrowsError(try client.call(RedisCommand(["INCR", "key:7"]))) { error in
            guard case .server(let text) = error as? RedisError else { return XCTFail("\(error)") }
            XCTAssertTrue(text.hasPrefix("ERR value is not an integer"), text)
        }
        // RESP3 after HELLO 3: a map, not a flat array.
        guard case .map = try client.call(RedisCommand(["HGETALL", "key:hash"])) else { return XCTFail("not RESP3") }

        let intruder = makeClient(password: "wrong")
        XCTAssertThrowsError(try intruder.call(RedisCommand(["GET", "key:1"]))) { error in
            guard case .server(let text) = error as? RedisError else { return XCTFail("\(error)") }
            XCTAssertTrue(text.hasPrefix("WRONGPASS"), text)
        }
        _ = try loop.submitAndWait { intruder.shutdown() }
    }

    func testPipelinedBurstOfTenThousandSetsAndGets() throws {
        try startCluster()
        final class Tally: @unchecked Sendable {  // Sendable: touched on the loop only, read after `done`.
            var sets = 0
            var matches = 0
            var failures: [String] = []
        }
        let tally = Tally()
        let done = DispatchSemaphore(value: 0)
        let client = client!
        let count = 10_000
        loop.execute {
            for index in 0..<count {
                client.send(RedisCommand(["SET", "burst:\(index)", "v\(index)"])) { result in
                    if case .success(.simpleString("OK")) = result {
                        tally.sets += 1
                    } else {
                        tally.failures.append("\(result)")
                    }
                }
            }
            var answered = 0
            for index in 0..<count {
                client.send(RedisCommand(["GET", "burst:\(index)"])) { result in
                    if case .success(.bulkString(let bytes)) = result, bytes == Array("v\(index)".utf8) {
                        tally.matches += 1
                    } else {
                        tally.failures.append("\(result)")
                    }
                    answered += 1
                    if answered == count { done.signal() }
                }
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success)
        let (sets, matches, failures) = try loop.submitAndWait { (tally.sets, tally.matches, tally.failures) }
        XCTAssertEqual(sets, count)
        XCTAssertEqual(matches, count)
        XCTAssertEqual(failures.prefix(3), [])
        XCTAssertEqual(try stats().connections, 3, "one pipelined connection per master (the seed is one of them)")
    }

    func testAskDuringMigrationAndMovedAfterResharding() throws {
        try startCluster()
        let slot = HashSlot.slot(of: "moveme")
        let source = try cluster.masterPort(forSlot: slot)
        let target = try cluster.masterPorts().first { $0 != source }!
        let (sourceID, targetID) = (try cluster.nodeID(source), try cluster.nodeID(target))
        XCTAssertEqual(try client.call(RedisCommand(["SET", "{moveme}a", "1"])), .simpleString("OK"))

        try cluster.cli(target, ["CLUSTER", "SETSLOT", String(slot), "IMPORTING", sourceID])
        try cluster.cli(source, ["CLUSTER", "SETSLOT", String(slot), "MIGRATING", targetID])
        // A new key in a migrating slot: the source answers ASK, the client asks the target.
        XCTAssertEqual(try client.call(RedisCommand(["SET", "{moveme}b", "2"])), .simpleString("OK"))
        XCTAssertEqual(try cluster.cli(target, ["CLUSTER", "COUNTKEYSINSLOT", String(slot)]), "1")
        XCTAssertGreaterThanOrEqual(try stats().asked, 1)
        XCTAssertEqual(try stats().moved, 0)
        XCTAssertEqual(try client.call(RedisCommand(["GET", "{moveme}a"])), bulk("1"))

        try cluster.cli(source, ["MIGRATE", "127.0.0.1", String(target), "", "0", "5000", "KEYS", "{moveme}a"])
        for port in try cluster.masterPorts() {
            try cluster.cli(port, ["CLUSTER", "SETSLOT", String(slot), "NODE", targetID])
        }
        // The client still routes the slot to the source, which now answers MOVED.
        XCTAssertEqual(try client.call(RedisCommand(["GET", "{moveme}a"])), bulk("1"))
        XCTAssertGreaterThanOrEqual(try stats().moved, 1)
        XCTAssertEqual(try client.call(RedisCommand(["GET", "{moveme}b"])), bulk("2"))
        XCTAssertEqual(try cluster.cli(target, ["CLUSTER", "COUNTKEYSINSLOT", String(slot)]), "2")
    }

    func testEvalShaFallsBackToEvalOnNoScript() throws {
        try startCluster()
        let script = RedisScript("return redis.call('INCRBY', KEYS[1], ARGV[1])")
        let key = "{dev:1}counter"
        let owner = try cluster.masterPort(forSlot: HashSlot.slot(of: key))
        XCTAssertEqual(try cluster.cli(owner, ["SCRIPT", "EXISTS", script.sha1]), "0")
        XCTAssertEqual(try client.call(script, keys: [key], arguments: ["5"]), .integer(5))
        XCTAssertEqual(try cluster.cli(owner, ["SCRIPT", "EXISTS", script.sha1]), "1")
        XCTAssertEqual(try client.call(script, keys: [key], arguments: ["5"]), .integer(10))
        let stats = try cluster.cli(owner, ["INFO", "commandstats"])
        XCTAssertTrue(stats.contains("cmdstat_eval:calls=1,"), "EVAL only once, as the fallback: \(stats)")
        XCTAssertTrue(stats.contains("cmdstat_evalsha:calls=2,"), "the NOSCRIPT miss and the hit: \(stats)")
        try cluster.cli(owner, ["SCRIPT", "FLUSH"])
        XCTAssertEqual(try client.call(script, keys: [key], arguments: ["1"]), .integer(11))
    }

    func testKilledMasterIsReplacedByItsReplicaAndTheClientGoesOn() throws {
        try startCluster(commandTimeout: 60)
        let key = "{failover}k"
        let slot = HashSlot.slot(of: key)
        XCTAssertEqual(try client.call(RedisCommand(["SET", key, "before"])), .simpleString("OK"))
        XCTAssertEqual(
            try client.call(
                RedisCommand(arguments: [Array("WAIT".utf8), Array("1".utf8), Array("0".utf8)], key: Array(key.utf8))),
            .integer(1))
        let master = try cluster.masterPort(forSlot: slot)
        let survivor = cluster.nodes.map(\.port).first { $0 != master }!

        cluster.kill(port: master)
        // Sent during the failover: held until a replica is promoted, then answered.
        XCTAssertEqual(try client.call(RedisCommand(["GET", key], idempotent: true)), bulk("before"))
        XCTAssertEqual(try client.call(RedisCommand(["SET", key, "after"], idempotent: true)), .simpleString("OK"))
        XCTAssertEqual(try client.call(RedisCommand(["GET", key])), bulk("after"))
        let promoted = try cluster.masterPort(forSlot: slot, askingPort: survivor)
        XCTAssertNotEqual(promoted, master)
        for index in 0..<30 {
            XCTAssertEqual(try client.call(RedisCommand(["SET", "after:\(index)", "x"])), .simpleString("OK"))
        }
        let stats = try stats()
        XCTAssertGreaterThanOrEqual(stats.connectionsLost, 1)
        XCTAssertGreaterThanOrEqual(stats.refreshes, 2)
    }

    func testBrokenConnectionRetriesOnlyWhatIsSafeToSendAgain() throws {
        try startCluster()
        let master = try cluster.masterPort(forSlot: HashSlot.slot(of: "safe"))
        XCTAssertEqual(try client.call(RedisCommand(["SET", "{safe}value", "kept"])), .simpleString("OK"))
        final class Answers: @unchecked Sendable {  // Sendable: written on the loop, read after `done`.
            var blocking: Result<RESPValue, RedisError>?
            var read: Result<RESPValue, RedisError>?
        }
        let answers = Answers()
        let done = DispatchSemaphore(value: 0)
        let client = client!
        loop.execute {
            // Written, then the connection breaks before any answer: BLPOP may have run, the GET may not matter.
            client.send(RedisCommand(["BLPOP", "{safe}list", "30"])) { answers.blocking = $0 }
            client.send(RedisCommand(["GET", "{safe}value"], idempotent: true)) {
                answers.read = $0
                done.signal()
            }
        }
        try cluster.waitUntil("BLPOP is blocked on the master") {
            try cluster.cli(master, ["CLIENT", "LIST"]).contains("cmd=blpop")
        }
        try cluster.cli(master, ["CLIENT", "KILL", "TYPE", "normal"])
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        let (blocking, read) = try loop.submitAndWait { (answers.blocking, answers.read) }
        guard case .failure(.connectionLost) = blocking else {
            return XCTFail("BLPOP: \(String(describing: blocking))")
        }
        XCTAssertEqual(read, .success(bulk("kept")), "the idempotent GET was sent again")
    }
}
