import RelayCore
import RelayJSON

/// Cluster mode (config `store.redisCluster`, or `serve --redis-cluster host:port,...`): the
/// relay keeps the emulated fleet in a Redis Cluster instead of its SQLite database, so several
/// relay nodes serve one fleet (docs/CLUSTER.md).
public struct ClusterSettings: Sendable, Hashable {
    /// `host:port` of nodes to learn the cluster's topology from; any one that answers is enough.
    package var seeds: [String]
    /// ACL user for `HELLO 3 AUTH`, with `password`; nil without AUTH.
    package var user: String?
    /// The password; nil without AUTH.
    package var password: String?
    /// Replicas that must hold a commit before it is acknowledged (`WAIT`; from
    /// `durability.replicas`); 0 acknowledges once the master has it.
    package var replicas = 0
    /// Milliseconds `WAIT` may take before the request fails (from `durability.replicaTimeout`).
    package var replicaTimeoutMs = 2000
    /// Whether every event is also appended to the fleet feed (`fleetStream`), which serves
    /// streams that name no device; off, such streams are refused and a push costs one script less.
    package var fleetStream = true
    /// TLS to every node, verified against this CA file (PEM); nil connects in plain TCP.
    package var caFile: String?
    /// The name every node's certificate must carry; nil: the address it is reached at.
    package var serverName: String?

    /// Most seeds accepted.
    static let maxSeeds = 64
    /// What a seed must look like, for error messages.
    static let seedExpectation = "host:port (a port from 1 to 65535)"

    package init(seeds: [String]) { self.seeds = seeds }

    /// The `store.redisCluster` object's keys.
    static let keys: Set<String> = ["seeds", "user", "password", "fleetStream", "caFile", "serverName"]

    /// Reads `store.redisCluster`; a relative `caFile` resolves against `base`.
    init(fields: ConfigFields, base: String) throws(JSONFieldError) {
        try fields.rejectUnknown(Self.keys)
        guard let elements = try fields.array("seeds", limit: Self.maxSeeds), !elements.isEmpty else {
            throw fields.error("seeds", "must list at least one \(Self.seedExpectation)")
        }
        var seeds: [String] = []
        for element in elements {
            guard let text = element.stringValue, let seed = Self.parseSeed(text) else {
                throw fields.error("seeds", "every seed must be \(Self.seedExpectation)")
            }
            seeds.append(seed)
        }
        self.init(seeds: seeds)
        user = try fields.string("user")
        password = try fields.string("password")
        if user != nil && password == nil { throw fields.error("password", "is needed with user") }
        fleetStream = try fields.bool("fleetStream") ?? true
        caFile = try fields.string("caFile").map { FileSystem.absolute($0, relativeTo: base) }
        serverName = try fields.string("serverName")
        if serverName != nil && caFile == nil { throw fields.error("serverName", "is needed only with caFile (TLS)") }
    }

    /// The seeds of `--redis-cluster host:port,host:port`, or nil when one is malformed.
    static func parseSeeds(_ text: String) -> [String]? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard !parts.isEmpty, parts.count <= maxSeeds else { return nil }
        var seeds: [String] = []
        for part in parts {
            guard let seed = parseSeed(part) else { return nil }
            seeds.append(seed)
        }
        return seeds
    }

    /// `host:port` with a non-empty host of at most 253 bytes and a port from 1 to 65535.
    static func parseSeed(_ text: String) -> String? {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        let host = text[..<colon]
        guard !host.isEmpty, host.utf8.count <= 253, !host.contains(where: { $0 == " " || $0 == "," }),
            let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port)
        else { return nil }
        return text
    }
}
