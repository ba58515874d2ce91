import Foundation
import RelayCore
import RelayNet
import RelayRedis
import RelayStore
import RelayTestKit
import Synchronization
import XCTest

@testable import RelayServer

/// The fleet feed on a real Redis Cluster (3 masters): events handed to it out of their
/// device's order, or twice, come out once each, in each device's order.
final class ClusterFeedTests: XCTestCase {
    private var redis: RedisClusterHarness!
    private var loop: EventLoop!
    private var store: ClusterStore!

    override func setUpWithError() throws {
        redis = try RedisClusterHarness.start(replicasPerMaster: 0)
        loop = try EventLoop(name: "feed-test")
        store = try ClusterStore(
            settings: ClusterSettings(seeds: redis.seeds), rules: .defaults, ids: SecureIdentifiers(),
            clock: RelayTimeSource(), retention: .init())
    }

    override func tearDown() {
        if let store, let loop {
            let done = DispatchSemaphore(value: 0)
            loop.execute {
                store.shutdown()
                done.signal()
            }
            done.wait()
        }
        store = nil
        loop = nil
        redis?.stop()
        redis = nil
    }

    private func event(_ device: String, _ seq: UInt64) -> ClusterStore.FeedEvent {
        ClusterStore.FeedEvent(
            device: device, seq: seq, type: "activity.updated", data: #"{"seq":\#(seq)}"#, bundleId: "b",
            activityId: "a-\(device)", alarmId: "")
    }

    /// Feeds `events` on the loop and waits for the answer.
    private func feed(_ events: [ClusterStore.FeedEvent]) throws {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<Void, StoreError>?>(nil)
        let store = store!
        let loop = loop!
        loop.execute {
            store.feed(events, on: store.client(on: loop)) { result in
                outcome.withLock { $0 = result }
                done.signal()
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success)
        try XCTUnwrap(outcome.withLock { $0 }).get()
    }

    /// The feed's entries as (device's activity, seq in the device) pairs, in feed order.
    private func fed() throws -> [(String, String)] {
        let client = store.client(on: loop)
        let reply = try client.call(RedisCommand(["XRANGE", ClusterKeys.feed, "-", "+"]))
        return try StreamReply.entries(reply, maxEntries: 1000).map { entry in
            (
                String(decoding: entry.value(of: "a") ?? [], as: UTF8.self),
                String(decoding: entry.value(of: "d") ?? [], as: UTF8.self)
            )
        }
    }

    func testEventsFedOutOfOrderOrTwiceComeOutOnceInTheirDevicesOrder() throws {
        let client = store.client(on: loop)
        // Device d1 committed events 1 to 3 (its stream holds them); the feed hears of 3 first.
        for seq in 1...3 {
            _ = try client.call(
                RedisCommand([
                    "XADD", ClusterKeys.events("d1"), "0-\(seq)", "t", "activity.updated", "d", #"{"seq":\#(seq)}"#,
                    "b", "b", "a", "a-d1", "l", "",
                ]))
        }
        try feed([event("d1", 3)])
        try feed([event("d2", 1), event("d1", 1), event("d1", 2)])
        try feed([event("d1", 3), event("d2", 2)])
        let entries = try fed()
        XCTAssertEqual(entries.filter { $0.0 == "a-d1" }.map(\.1), [#"{"seq":1}"#, #"{"seq":2}"#, #"{"seq":3}"#])
        XCTAssertEqual(entries.filter { $0.0 == "a-d2" }.map(\.1), [#"{"seq":1}"#, #"{"seq":2}"#])
        XCTAssertEqual(entries.count, 5)
        // Entry ids are 0-1 ... 0-5, the feed's own count.
        let reply = try client.call(RedisCommand(["XRANGE", ClusterKeys.feed, "-", "+"]))
        XCTAssertEqual(try StreamReply.entries(reply, maxEntries: 10).map(\.id.sequence), [1, 2, 3, 4, 5])
        // An event of no device (a clock change) is always appended.
        try feed([
            ClusterStore.FeedEvent(
                device: "", seq: 0, type: "clock", data: "{}", bundleId: "", activityId: "", alarmId: "")
        ])
        XCTAssertEqual(try fed().count, 6)
    }

    func testAGapWhoseEventsWereTrimmedFromTheDeviceStreamIsSkipped() throws {
        // Nothing of device d3 is in its stream (trimmed): its event 7 is fed as it comes.
        try feed([event("d3", 7)])
        try feed([event("d3", 8), event("d3", 7)])
        XCTAssertEqual(try fed().map(\.1), [#"{"seq":7}"#, #"{"seq":8}"#])
    }
}
