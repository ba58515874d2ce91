import Glibc
package import RelayCore

/// Everything `activity-relay serve` can be told, from flags and the JSON config file
/// (`deploy/relay.example.json` shows every option; `deploy/CONFIG.md` explains them).
///
/// The defaults work with no config at all: listen on `127.0.0.1:8443`, keep state in `./.relay`,
/// follow the system clock, one thread per core, a self-signed certificate and the development
/// provider key from the data directory. Paths are absolute once parsed: relative paths in the
/// config file are resolved against the file's directory, relative flag values against the
/// working directory.
public struct RelayConfiguration: Sendable, Hashable {
    /// Where to listen. Default `127.0.0.1:8443`.
    package var listen: ListenAddress = .default
    /// A second listener that answers only `GET /healthz`, with connection slots of its own, so
    /// that health checks are answered while the main listener is at `http.maxConnections`.
    /// Default none.
    package var healthListen: ListenAddress?
    /// The data directory (absolute): certificate, keys and database. Default `./.relay`.
    package var dataDirectory: String
    /// The clock the emulated device follows. Default `system`.
    package var clock: ClockMode = .system
    /// Event-loop threads. Default: the number of online processors.
    package var threads: Int
    /// The operator's certificate and key, or nil for the self-signed pair in the data directory.
    package var tls: TLSFiles?
    /// Provider keys besides the data directory's development key.
    package var providerKeys: [ProviderKeyConfiguration] = []
    /// Budgets, lifetimes and sizes the emulated device and the provider API enforce.
    package var rules: RelayRules = .defaults
    /// Timeouts and size limits of the listener.
    package var http = HTTPLimits()
    /// How many events and push records the database keeps.
    package var retention = LogRetention()
    /// When acknowledged requests reach the disk: in the background by default.
    package var durability = DurabilitySettings()
    /// Event-stream buffering, heartbeats and tickets.
    package var stream = StreamSettings()
    /// Fault rules injected from the start (config object `faults`).
    package var faults = FaultSettings()
    /// The browser console's per-`attributesType` templates.
    package var console = ConsoleSettings()
    /// Provider API requests refused in a row on one connection before it is closed with GOAWAY;
    /// 0 never closes.
    package var providerRefusalLimit = ProviderRoutes.defaultRefusalLimit
    /// The apps with the Broadcast Capability (channels and broadcasts); every app by default.
    package var broadcastBundleIDs = AllowedBundleIDs.any
    /// The largest `providerRefusalLimit`.
    static let maxProviderRefusalLimit = 1_000_000
    /// How much the relay logs. Default `info`.
    package var logLevel: LogLevel = .info
    /// How log lines are written: `text` (the default) or `json`, one object per line.
    package var logFormat: RelayLog.Format = .text
    /// The optional unauthenticated `/metrics` listener (`metrics.listen`); nil serves `/metrics`
    /// only on the main listener, with the admin key.
    package var metricsListen: ListenAddress?
    /// Cluster mode: the Redis Cluster that holds the fleet (`store.redisCluster`); nil keeps the
    /// fleet in the data directory's SQLite database.
    package var cluster: ClusterSettings?
    /// The config file this came from (as given on the command line), or nil.
    package var configFile: String?

    /// The defaults, with the data directory `./.relay` resolved against `workingDirectory`
    /// (the process's working directory when nil).
    package init(workingDirectory: String? = nil) {
        let base = workingDirectory ?? FileSystem.currentDirectory()
        dataDirectory = FileSystem.absolute(Self.defaultDataDirectory, relativeTo: base)
        threads = Self.defaultThreads
    }

    /// `./.relay`.
    package static let defaultDataDirectory = "./.relay"
    /// Most event-loop threads a config may ask for.
    package static let maxThreads = 256

    /// One thread per online processor (at least one, at most `maxThreads`).
    package static var defaultThreads: Int {
        let online = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return min(max(1, online), maxThreads)
    }

    /// The TLS certificate the listener loads: the configured one or `tls-cert.pem` in the data directory.
    package var certificatePath: String {
        tls?.certificatePath ?? dataDirectory + "/" + DataDirectory.certificateFileName
    }

    /// The TLS private key the listener loads: the configured one or `tls-key.pem` in the data directory.
    package var privateKeyPath: String {
        tls?.privateKeyPath ?? dataDirectory + "/" + DataDirectory.privateKeyFileName
    }

    /// What `--threads` and `threads` accept, for error messages.
    static let threadsExpectation = "a whole number from 1 to \(maxThreads)"

    /// A thread count from a flag.
    static func parseThreads(_ text: String) -> Int? {
        guard text.utf8.count <= 4, let count = Int(text), (1...maxThreads).contains(count) else { return nil }
        return count
    }
}
