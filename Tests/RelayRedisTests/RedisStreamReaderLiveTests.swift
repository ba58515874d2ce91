import Dispatch
import RelayNet
import RelayRedis
import RelayTestKit
import XCTest

/// `RedisStreamReader` against a real Redis Cluster (3 masters, 3 replicas): entries written with
/// the pipelined client reach watches through tracking pushes, across masters and a failover.
final class RedisStreamReaderLiveTests: XCTestCase {
    private var cluster: RedisClusterHarness!
    private var loop: EventLoop!
    private var client: RedisClusterClient!
    private var reader: RedisStreamReader!

    /// What each watch was handed, batch by batch; touched on the loop only.
    private final class Received: @unchecked Sendable {  // Sendable: loop-confined, read via submitAndWait.
        var batches: [Int: [[StreamEntry]]] = [:]
    }
    private let received = Received()

    private func start(batchSize: Int = 256, healthInterval: Double = 5, password: String? = nil) throws {
        cluster = try RedisClusterHarness.start(password: password)
        loop = try EventLoop(name: "stream-test")
        var options = RedisClusterClient.Options(seeds: [cluster.seeds[0]])
        options.commandTimeout = 60
        options.password = password
        client = RedisClusterClient(options: options, loop: loop)
        reader = RedisStreamReader(options: options, loop: loop, batchSize: batchSize, healthInterval: healthInterval)
    }

    override func tearDown() {
        if let loop {
            let (client, reader) = (client, reader)
            _ = try? loop.submitAndWait {
                reader?.shutdown()
                client?.shutdown()
            }
            loop.stop()
            loop.waitUntilStopped()
        }
        cluster?.stop()
        super.tearDown()
    }

    // MARK: - Helpers

    /// Watches `key` after `after`, recording batches under `tag`.
    @discardableResult
    private func watch(_ key: String, after: String, tag: Int) throws -> RedisStreamReader.WatchID {
        let (reader, received) = (reader!, received)
        let start = StreamID(after)!
        return try loop.submitAndWait {
            reader.watch(key, after: start) { batch in received.batches[tag, default: []].append(batch) }
        }
    }

    private func unwatch(_ id: RedisStreamReader.WatchID) throws {
        let reader = reader!
        try loop.submitAndWait { reader.unwatch(id) }
    }

    /// The sequence numbers `tag` received, in order.
    private func sequences(_ tag: Int) throws -> [UInt64] {
        let received = received
        return try loop.submitAndWait { (received.batches[tag] ?? []).flatMap { $0.map(\.id.sequence) } }
    }

    private func batchSizes(_ tag: Int) throws -> [Int] {
        let received = received
        return try loop.submitAndWait { (received.batches[tag] ?? []).map(\.count) }
    }

    private func waitFor(_ tag: Int, count: Int, timeout: Double = 60) throws {
        try cluster.waitUntil("watch \(tag) has \(count) entries", timeout: timeout) {
            try sequences(tag).count >= count
        }
    }

    private func add(_ key: String, _ sequence: Int) throws {
        XCTAssertEqual(
            try client.call(RedisCommand(["XADD", key, "0-\(sequence)", "n", String(sequence)])),
            .bulkString(Array("0-\(sequence)".utf8)))
    }

    private func stats() throws -> RedisStreamReader.Stats {
        let reader = reader!
        return try loop.submitAndWait { reader.stats }
    }

    /// Device stream keys served by `count` different masters.
    private func keysOnDistinctMasters(_ count: Int) throws -> [(key: String, master: UInt16)] {
        var found: [(key: String, master: UInt16)] = []
        for index in 0..<200 where found.count < count {
            let key = "{dev:\(index)}:ev"
            let master = try cluster.masterPort(forSlot: HashSlot.slot(of: key))
            if !found.contains(where: { $0.master == master }) { found.append((key, master)) }
        }
        XCTAssertEqual(found.count, count)
        return found
    }

    // MARK: - Tests

    func testXReadOverKeysOfTwoSlotsIsRefusedAsCrossSlot() throws {
        try start()
        // Why the reader cannot name every stream of a master in one XREAD BLOCK.
        let master = try cluster.masterPort(forSlot: HashSlot.slot(of: "{dev:1}:ev"))
        let other = (2..<500).map { "{dev:\($0)}:ev" }.first {
            (try? cluster.masterPort(forSlot: HashSlot.slot(of: $0))) == master
        }!
        let answer = try cluster.cli(master, ["XREAD", "COUNT", "1", "STREAMS", "{dev:1}:ev", other, "0", "0"])
        XCTAssertTrue(answer.hasPrefix("CROSSSLOT"), answer)
    }

    func testEntriesOnThreeMastersReachTheirWatchesInOrderOnce() throws {
        try start(password: "stream-pass")
        let keys = try keysOnDistinctMasters(3)
        for (tag, key) in keys.enumerated() { try watch(key.key, after: "0-0", tag: tag) }
        for sequence in 1...40 {
            for key in keys { try add(key.key, sequence) }
        }
        for tag in keys.indices {
            try waitFor(tag, count: 40)
            XCTAssertEqual(try sequences(tag), Array(1...40))
        }
        // A script appending two entries, as the commit script does: both arrive, in order.
        let script = RedisScript(
            "redis.call('XADD', KEYS[1], ARGV[1], 'n', '41'); return redis.call('XADD', KEYS[1], ARGV[2], 'n', '42')")
        XCTAssertEqual(
            try client.call(script, keys: [keys[0].key], arguments: ["0-41", "0-42"]),
            .bulkString(Array("0-42".utf8)))
        try waitFor(0, count: 42)
        XCTAssertEqual(try sequences(0), Array(1...42))
        let entry = try loop.submitAndWait { [received] in received.batches[1]![0][0] }
        XCTAssertEqual(entry.value(of: "n"), Array("1".utf8))
        let nodes = try loop.submitAndWait { [reader] in reader!.connectedNodes }
        XCTAssertEqual(nodes.count, 3, "one read connection per master: \(nodes)")
        XCTAssertGreaterThan(try stats().wakeups, 0)
        XCTAssertEqual(try stats().malformedReplies, 0)
    }

    func testWatchAddedWhileOthersWaitIsServedAtOnce() throws {
        // A 30 s health interval: only pushes and the watch itself can start the reads below.
        try start(healthInterval: 30)
        let keys = try keysOnDistinctMasters(1)
        let first = keys[0].key
        let master = keys[0].master
        let second = (100..<600).map { "{dev:\($0)}:ev" }.first {
            (try? cluster.masterPort(forSlot: HashSlot.slot(of: $0))) == master
        }!
        try watch(first, after: "0-0", tag: 0)
        try add(first, 1)
        try waitFor(0, count: 1, timeout: 20)
        // The reader now waits on this master; a new watch on another key there, with entries
        // before and after it starts, is served without waiting for anything.
        try add(second, 1)
        try add(second, 2)
        try watch(second, after: "0-1", tag: 1)
        try waitFor(1, count: 1, timeout: 20)
        try add(second, 3)
        try waitFor(1, count: 2, timeout: 20)
        XCTAssertEqual(try sequences(1), [2, 3])
        // A missing stream is empty; a deleted one too, and it is followed when written again.
        try watch("{dev:missing}:ev", after: "0-0", tag: 2)
        XCTAssertEqual(try client.call(RedisCommand(["DEL", first])), .integer(1))
        try add(first, 5)
        try waitFor(0, count: 2, timeout: 20)
        try add("{dev:missing}:ev", 1)
        try waitFor(2, count: 1, timeout: 20)
        XCTAssertEqual(try sequences(0), [1, 5])
        XCTAssertEqual(try sequences(2), [1])
    }

    func testTwoWatchesOnOneKeyFromDifferentPositionsInSmallBatches() throws {
        try start(batchSize: 3)
        let key = "{dev:shared}:ev"
        for sequence in 1...10 { try add(key, sequence) }
        try watch(key, after: "0-5", tag: 0)
        try watch(key, after: "0-0", tag: 1)
        for sequence in 11...20 { try add(key, sequence) }
        try waitFor(0, count: 15)
        try waitFor(1, count: 20)
        try watch(key, after: "0-18", tag: 2)
        for sequence in 21...22 { try add(key, sequence) }
        try waitFor(2, count: 4)
        try waitFor(0, count: 17)
        try waitFor(1, count: 22)
        XCTAssertEqual(try sequences(0), Array(6...22))
        XCTAssertEqual(try sequences(1), Array(1...22))
        XCTAssertEqual(try sequences(2), Array(19...22))
        for tag in 0...2 { XCTAssertLessThanOrEqual(try batchSizes(tag).max() ?? 0, 3, "COUNT bounds each batch") }
        let reader = reader!
        XCTAssertEqual(try loop.submitAndWait { reader.watchedKeyCount }, 1, "one key, read once for all watches")
    }

    func testUnwatchStopsDelivery() throws {
        try start(healthInterval: 1)
        let key = "{dev:gone}:ev"
        let stopped = try watch(key, after: "0-0", tag: 0)
        try add(key, 1)
        try waitFor(0, count: 1)
        try unwatch(stopped)
        try add(key, 2)
        try add(key, 3)
        // A later watch on the key sees 2 and 3: the reader has read them, and the stopped watch got none.
        let later = try watch(key, after: "0-1", tag: 1)
        try waitFor(1, count: 2)
        XCTAssertEqual(try sequences(1), [2, 3])
        XCTAssertEqual(try sequences(0), [1])
        let other = try watch("{dev:other}:ev", after: "0-0", tag: 2)
        try unwatch(other)
        let reader = reader!
        XCTAssertEqual(try loop.submitAndWait { reader.watchedKeyCount }, 1)
        // With nothing watched the read connections are let go at the next health check.
        try unwatch(later)
        XCTAssertEqual(try loop.submitAndWait { reader.watchedKeyCount }, 0)
        try cluster.waitUntil("the reader holds no connection") {
            try loop.submitAndWait { reader.connectedNodes.isEmpty }
        }
    }

    func testKilledMasterFailoverDeliversEveryAcknowledgedEntryOnceInOrder() throws {
        try start(healthInterval: 1)
        let keys = try keysOnDistinctMasters(2)
        let (key, master) = keys[0]
        let steady = keys[1].key
        try watch(key, after: "0-0", tag: 0)
        try watch(steady, after: "0-0", tag: 1)

        final class Writer: @unchecked Sendable {  // Sendable: written by the writer thread, read after `done`.
            var replicated: [UInt64] = []
            var failures: [String] = []
            var unreplicated = false
        }
        let writer = Writer()
        let done = DispatchSemaphore(value: 0)
        let total = 400
        let killAt = 150
        let client = client!
        let killAfter = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            defer { done.signal() }
            for sequence in 1...total {
                if sequence == killAt { killAfter.signal() }
                let id = "0-\(sequence)"
                var attempts = 0
                while true {
                    attempts += 1
                    do {
                        _ = try client.call(
                            RedisCommand(["XADD", key, id, "n", String(sequence)], idempotent: true))
                        break
                    } catch RedisError.server(let text) where text.contains("equal or smaller") {
                        break  // an earlier attempt was applied and its answer lost
                    } catch {
                        if attempts > 20 {
                            writer.failures.append("\(id): \(error)")
                            return
                        }
                    }
                }
                // Acknowledged = on a replica too. The promoted replica has none: stop asking once it says 0.
                guard !writer.unreplicated else { continue }
                let wait = RedisCommand(
                    arguments: ["WAIT", "1", "200"].map { Array($0.utf8) }, key: Array(key.utf8), idempotent: true)
                if (try? client.call(wait))?.integer ?? 0 >= 1 {
                    writer.replicated.append(UInt64(sequence))
                } else if sequence >= killAt {
                    writer.unreplicated = true
                }
            }
        }
        XCTAssertEqual(killAfter.wait(timeout: .now() + 120), .success)
        cluster.kill(port: master)
        for sequence in 1...5 { try add(steady, sequence) }
        XCTAssertEqual(done.wait(timeout: .now() + 180), .success)
        XCTAssertEqual(writer.failures, [])

        // Everything now in the stream reaches the watch; nothing twice, nothing out of order.
        let stored = try client.call(RedisCommand(["XRANGE", key, "-", "+"], idempotent: true))
        let final = try StreamReply.entries(stored, maxEntries: total).map(\.id.sequence)
        try waitFor(0, count: final.count, timeout: 120)
        try cluster.waitUntil("the watch reached the stream's last entry", timeout: 120) {
            try sequences(0).last == final.last
        }
        let delivered = try sequences(0)
        XCTAssertEqual(delivered, delivered.sorted())
        XCTAssertEqual(Set(delivered).count, delivered.count, "no entry twice")
        XCTAssertTrue(Set(final).isSubset(of: Set(delivered)), "every stored entry delivered")
        let missing = Set(writer.replicated).subtracting(delivered)
        XCTAssertEqual(missing, Set<UInt64>(), "entries acknowledged by a replica but not delivered")
        XCTAssertGreaterThan(writer.replicated.count, 100)
        XCTAssertEqual(final.last, UInt64(total))
        try waitFor(1, count: 5)
        XCTAssertEqual(try sequences(1), Array(1...5))
        let stats = try stats()
        XCTAssertGreaterThanOrEqual(stats.connectionsLost, 1)
        XCTAssertEqual(stats.malformedReplies, 0)
    }

    func testWatchFollowsItsSlotThroughAskAndMoved() throws {
        try start()
        let key = "{dev:moving}:ev"
        let slot = HashSlot.slot(of: key)
        let source = try cluster.masterPort(forSlot: slot)
        let target = try cluster.masterPorts().first { $0 != source }!
        let (sourceID, targetID) = (try cluster.nodeID(source), try cluster.nodeID(target))
        try watch(key, after: "0-0", tag: 0)
        for sequence in 1...3 { try add(key, sequence) }
        try waitFor(0, count: 3)

        try cluster.cli(target, ["CLUSTER", "SETSLOT", String(slot), "IMPORTING", sourceID])
        try cluster.cli(source, ["CLUSTER", "SETSLOT", String(slot), "MIGRATING", targetID])
        try cluster.cli(source, ["MIGRATE", "127.0.0.1", String(target), "", "0", "5000", "KEYS", key])
        // Mid-migration the source answers ASK for the moved key: reads and writes go to the target.
        for sequence in 4...6 { try add(key, sequence) }
        try waitFor(0, count: 6)
        XCTAssertGreaterThanOrEqual(try stats().asked, 1)

        for port in try cluster.masterPorts() {
            try cluster.cli(port, ["CLUSTER", "SETSLOT", String(slot), "NODE", targetID])
        }
        for sequence in 7...9 { try add(key, sequence) }
        try waitFor(0, count: 9)
        XCTAssertEqual(try sequences(0), Array(1...9))
        XCTAssertGreaterThanOrEqual(try stats().moved, 1)
    }

    func testTrackingTableEvictionCostsReadsNotEntries() throws {
        try start()
        let master = try keysOnDistinctMasters(1)[0].master
        var keys: [String] = []
        for index in 0..<2000 where keys.count < 6 {
            let key = "{dev:\(index)}:ev"
            if try cluster.masterPort(forSlot: HashSlot.slot(of: key)) == master { keys.append(key) }
        }
        XCTAssertEqual(keys.count, 6)
        // Room for two tracked keys: Redis evicts the others from its table, pushing `invalidate`.
        try cluster.cli(master, ["CONFIG", "SET", "tracking-table-max-keys", "2"])
        for (tag, key) in keys.enumerated() { try watch(key, after: "0-0", tag: tag) }
        for sequence in 1...5 {
            for key in keys { try add(key, sequence) }
        }
        for tag in keys.indices {
            try waitFor(tag, count: 5)
            XCTAssertEqual(try sequences(tag), Array(1...5))
        }
        let info = try cluster.cli(master, ["INFO", "stats"])
        let tracked = info.split(whereSeparator: \.isNewline).first { $0.hasPrefix("tracking_total_keys:") }
        XCTAssertLessThanOrEqual(tracked.flatMap { Int($0.split(separator: ":")[1]) } ?? .max, 2, "\(info)")
    }
}
