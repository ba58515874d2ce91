import Foundation
import RelayTestKit
import XCTest

/// The same live tests on both stores: the provider, app and stream test classes below run on
/// SQLite in the rest of the suite and again here on a Redis Cluster (3 masters, 3 replicas),
/// through this test binary with `RELAY_TEST_REDIS_CLUSTER` set (`StoreUnderTest`).
final class StoreParityLiveTests: XCTestCase {
    /// The test classes run on both stores.
    static let classes = [
        // Provider API
        "AioapnsLiveTests", "ChannelBroadcastLiveTests", "CurlRecipeLiveTests", "DevicePushReasonLiveTests",
        "FaultInjectionLiveTests", "ProviderConnectionLiveTests", "PushLogLiveTests",
        // App API and the console
        "ActivityRoutesTests", "AlarmDaylightSavingTests", "AlarmRoutesTests", "AppAPIProtocolTests",
        "AppAuthScopeTests", "ClockRoutesTests", "ConsoleBrowserTests", "ConsoleRoutesTests", "DeviceRoutesTests",
        "FaultRoutesTests", "WalkthroughTests",
        // Event stream
        "AlarmCountdownEventTests", "FanOutTests", "SlowSubscriberTests", "StreamAccessTests", "StreamDeliveryTests",
        "WatchCommandTests",
    ]

    /// Tests of those classes that look inside the SQLite relay itself, so they have no cluster twin.
    static let sqliteOnly = [
        // They read the documents in the SQLite file.
        "AppAuthScopeTests/testOnlyTheKeysHashIsStored", "DeviceRoutesTests/testWritesAreDurableWhenAnswered",
        // It prunes the SQLite event log to make a subscriber fall behind it.
        "StreamDeliveryTests/testTooFarBehindGetsASnapshotThenLiveEvents",
        // It compares the answer's bytes with one read of the SQLite push log.
        "PushLogLiveTests/testLargeAnswersAreTheBytesOfOneStoreRead",
        // It fills an app's 10,000 channels through the in-process emulator (ClusterChannelLiveTests
        // fills them in Redis and checks the same refusal).
        "ChannelBroadcastLiveTests/testEveryChannelAndBroadcastReason",
    ]

    func testProviderAppAndStreamTestsPassOnARedisCluster() throws {
        // Inside the run this test starts, the variable is set; it never starts another.
        guard StoreUnderTest.clusterSeeds == nil else { return }
        let binary = try XCTUnwrap(Bundle.main.executablePath)
        let listed = try ChildProcess.run([binary, "--list-tests"], timeout: 120)
        XCTAssertEqual(listed.status, 0, listed.stderr)
        let excluded = Set(Self.sqliteOnly.map { "RelayServerTests.\($0)" })
        let selected = listed.stdout.split(separator: "\n").map(String.init).filter { name in
            Self.classes.contains { name.hasPrefix("RelayServerTests.\($0)/") } && !excluded.contains(name)
        }
        // Every class and every exclusion names tests that exist (a rename would skip them silently).
        for name in Self.classes {
            XCTAssertTrue(selected.contains { $0.hasPrefix("RelayServerTests.\(name)/") }, "no tests in \(name)")
        }
        for name in excluded { XCTAssertTrue(listed.stdout.contains(name + "\n"), "no test \(name)") }

        let redis = try RedisClusterHarness.start(replicasPerMaster: 1)
        defer { redis.stop() }
        var environment = ProcessInfo.processInfo.environment
        environment[StoreUnderTest.variable] = redis.seeds.joined(separator: ",")
        let outcome = try ChildProcess.run(
            [binary, selected.joined(separator: ",")], timeout: 1800, environment: environment)
        let output = outcome.stdout + outcome.stderr
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("store-parity-\(UUID().uuidString).log")
        try Data(output.utf8).write(to: log)
        let failures = output.split(separator: "\n").filter { $0.contains(": error: ") }
        XCTAssertEqual(
            outcome.status, 0,
            "on a Redis Cluster (whole output in \(log.path)):\n" + failures.prefix(40).joined(separator: "\n"))
        let passed = output.split(separator: "\n").filter { $0.hasPrefix("Test Case '") && $0.contains("' passed (") }
        XCTAssertEqual(passed.count, selected.count, "every selected test ran and passed (output in \(log.path))")
    }
}
