import Foundation
import RelayServer
import RelayTestKit

/// The store live relays run on: SQLite in their data directory, or, when the environment sets
/// `RELAY_TEST_REDIS_CLUSTER` to the `host:port` of Redis Cluster nodes (`StoreParityLiveTests`
/// runs the provider, app and stream live tests so), that cluster, emptied before each relay starts
/// so every test begins with no fleet, as it does on a fresh SQLite database.
enum StoreUnderTest {
    /// The variable that names the cluster's nodes, comma-separated.
    static let variable = "RELAY_TEST_REDIS_CLUSTER"

    /// The cluster's nodes, or nil for SQLite.
    static var clusterSeeds: [String]? {
        guard let text = ProcessInfo.processInfo.environment[variable], !text.isEmpty else { return nil }
        return text.split(separator: ",").map(String.init)
    }

    /// Points `options` at the cluster, when one is named, emptied first if `fresh` (a relay on a
    /// new data directory; one that restarts on its directory finds the fleet it left).
    static func prepare(_ options: inout RelayRuntime.Options, fresh: Bool) throws {
        if let cluster = try cluster(emptied: fresh) { options.cluster = cluster }
    }

    /// The settings of the cluster named, emptied first if `emptied`; nil for SQLite.
    static func cluster(emptied: Bool) throws -> ClusterSettings? {
        guard let seeds = clusterSeeds else { return nil }
        for seed in seeds where emptied {
            guard let colon = seed.lastIndex(of: ":") else { continue }
            // Replicas refuse writes (READONLY) and follow their master's FLUSHALL.
            _ = try ChildProcess.run(
                [
                    "redis-cli", "-h", String(seed[..<colon]), "-p", String(seed[seed.index(after: colon)...]),
                    "FLUSHALL",
                ],
                timeout: 30)
        }
        return ClusterSettings(seeds: seeds)
    }
}
