import RelayRedis
import XCTest

final class HashSlotTests: XCTestCase {
    func testCRC16KnownVector() {
        XCTAssertEqual(HashSlot.crc16(Array("123456789".utf8)), 0x31C3)
    }

    func testSlotsMatchRedis() {
        // Values from `redis-cli CLUSTER KEYSLOT`.
        XCTAssertEqual(HashSlot.slot(of: "foo"), 12182)
        XCTAssertEqual(HashSlot.slot(of: "bar"), 5061)
        XCTAssertEqual(HashSlot.slot(of: ""), 0)
    }

    func testHashTags() {
        XCTAssertEqual(HashSlot.slot(of: "{user1000}.following"), HashSlot.slot(of: "{user1000}.followers"))
        XCTAssertEqual(HashSlot.slot(of: "{user1000}.following"), HashSlot.slot(of: "user1000"))
        // Empty tag: the whole key is hashed. Only the first `{...}` counts.
        XCTAssertEqual(HashSlot.slot(of: "foo{}{bar}"), HashSlot.slot(of: Array("foo{}{bar}".utf8)))
        XCTAssertNotEqual(HashSlot.slot(of: "foo{}{bar}"), HashSlot.slot(of: "bar"))
        XCTAssertEqual(HashSlot.slot(of: "foo{{bar}}zap"), HashSlot.slot(of: "{bar"))
        XCTAssertEqual(HashSlot.slot(of: "foo{bar}{zap}"), HashSlot.slot(of: "bar"))
        XCTAssertEqual(HashSlot.slot(of: "{dev:42}settings"), HashSlot.slot(of: "dev:42"))
        XCTAssertEqual(HashSlot.slot(of: "no{tag"), HashSlot.slot(of: Array("no{tag".utf8)))
    }

    func testScriptSHA1() {
        XCTAssertEqual(RedisScript("abc").sha1, "a9993e364706816aba3e25717850c26c9cd0d89d")
        XCTAssertEqual(RedisScript("").sha1, "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        XCTAssertEqual(
            RedisScript(String(repeating: "a", count: 1000)).sha1, "291e9a6c66994949b57ba5e650361e98fc36b1ba")
    }

    func testTopologyFromShardsAndSlots() throws {
        func node(_ port: Int, _ role: String, _ health: String = "online") -> RESPValue {
            .map([
                RESPPair(key: .bulkString(Array("port".utf8)), value: .integer(Int64(port))),
                RESPPair(key: .bulkString(Array("ip".utf8)), value: .bulkString(Array("127.0.0.1".utf8))),
                RESPPair(key: .bulkString(Array("endpoint".utf8)), value: .bulkString(Array("127.0.0.1".utf8))),
                RESPPair(key: .bulkString(Array("role".utf8)), value: .bulkString(Array(role.utf8))),
                RESPPair(key: .bulkString(Array("health".utf8)), value: .bulkString(Array(health.utf8))),
            ])
        }
        let shards: RESPValue = .array([
            .map([
                RESPPair(
                    key: .bulkString(Array("slots".utf8)),
                    value: .array([.integer(0), .integer(99), .integer(200), .integer(16383)])),
                RESPPair(
                    key: .bulkString(Array("nodes".utf8)), value: .array([node(7001, "master"), node(7004, "replica")])),
            ]),
            .map([
                RESPPair(key: .bulkString(Array("slots".utf8)), value: .array([.integer(100), .integer(199)])),
                RESPPair(key: .bulkString(Array("nodes".utf8)), value: .array([node(7002, "master", "failed")])),
            ]),
        ])
        let topology = try ClusterTopology.fromShards(shards, queried: "127.0.0.1:7001", tls: false)
        let table = topology.slotTable()
        XCTAssertEqual(table[0], "127.0.0.1:7001")
        XCTAssertNil(table[150])  // failed master: no route until a replica is promoted
        XCTAssertEqual(table[16383], "127.0.0.1:7001")
        XCTAssertEqual(topology.shards[0].replicas, ["127.0.0.1:7004"])

        let slots: RESPValue = .array([
            .array([.integer(0), .integer(16383), .array([.bulkString(Array("10.0.0.1".utf8)), .integer(6379)])])
        ])
        XCTAssertEqual(try ClusterTopology.fromSlots(slots, queried: "x:1").slotTable()[8000], "10.0.0.1:6379")
        XCTAssertThrowsError(try ClusterTopology.fromShards(.integer(1), queried: "x:1", tls: false))
        XCTAssertThrowsError(
            try ClusterTopology.fromSlots(.array([.array([.integer(5), .integer(99999), .null])]), queried: "x:1"))
    }
}
