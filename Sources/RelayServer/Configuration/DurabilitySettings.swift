import RelayCore
public import RelayStore

/// When an acknowledged request reaches the disk (config object `durability`).
///
/// Every `200` (and every other acknowledged write) survives a crash of the relay (`kill -9`)
/// either way: it is answered only once its commit is in SQLite's write-ahead log. By default the
/// log is synced to the disk every `syncInterval` seconds in the background, so power loss (or a
/// kernel crash) loses at most about that much; `syncEachCommit` syncs before every answer
/// instead, which also survives power loss and costs throughput (README, "Architecture").
public struct DurabilitySettings: Sendable, Hashable {
    /// `fdatasync` of the log before every acknowledgement. Default false.
    package var syncEachCommit = false
    /// Seconds between background syncs of the log when `syncEachCommit` is false. Default 0.1.
    package var syncInterval: Double = 0.1
    /// Cluster mode: replicas that must hold a commit (`WAIT`) before it is acknowledged. Default 0.
    package var replicas = 0
    /// Cluster mode: seconds `WAIT` may take; a commit short of `replicas` by then is not
    /// acknowledged (`500`/`503`). Default 2.
    package var replicaTimeout: Double = 2

    /// The defaults.
    public init() {}

    /// The config keys, as written in the `durability` object.
    static let keys: Set<String> = ["syncEachCommit", "syncInterval", "replicas", "replicaTimeout"]

    /// The longest `syncInterval`.
    static let maxSyncInterval: Double = 60

    /// Reads the `durability` object; keys left out keep their defaults.
    init(fields: ConfigFields) throws(JSONFieldError) {
        try fields.rejectUnknown(Self.keys)
        self.init()
        syncEachCommit = try fields.bool("syncEachCommit") ?? syncEachCommit
        syncInterval = try fields.seconds("syncInterval", atMost: Self.maxSyncInterval) ?? syncInterval
        replicas = try fields.integer("replicas", in: 0...16) ?? replicas
        replicaTimeout = try fields.seconds("replicaTimeout", atMost: Self.maxSyncInterval) ?? replicaTimeout
    }

    /// For the startup line: `each-commit`, or `every-0.1s`.
    package var description: String { storeDurability.description }

    /// The store's setting.
    public var storeDurability: StoreDurability {
        syncEachCommit ? .syncEachCommit : .syncPeriodically(.microseconds(Int64((syncInterval * 1e6).rounded())))
    }
}
