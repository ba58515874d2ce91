import RelayCore
import RelayJSON

/// The JSON config file (`--config FILE`): one object whose keys are the options, every one
/// optional. Unknown keys, wrong types and out-of-range values are errors naming the key path.
extension RelayConfiguration {
    /// The largest config file read.
    static let maxFileBytes = 1 << 20

    /// The top-level keys.
    static let fileKeys: Set<String> = [
        "listen", "dataDirectory", "clock", "threads", "logLevel", "tls", "providerKeys", "rules", "http",
        "retention", "durability", "stream", "providerRefusalLimit", "broadcastBundleIds", "healthListen", "faults",
        "console", "logFormat", "metrics", "store",
    ]

    /// Reads the config file at `path` (as given; resolved against `workingDirectory`) over the
    /// current values. Errors name the file as given.
    mutating func apply(configFile path: String, workingDirectory: String) throws(ConfigurationError) {
        let absolute = FileSystem.absolute(path, relativeTo: workingDirectory)
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.read(absolute, limit: Self.maxFileBytes)
        } catch {
            throw ConfigurationError(path, error.description)
        }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: bytes)
        } catch {
            throw ConfigurationError(path, "not valid JSON: \(error)")
        }
        do throws(JSONFieldError) {
            try apply(json: json, base: FileSystem.directoryName(of: absolute))
        } catch {
            throw ConfigurationError(path, error.description)
        }
        configFile = path
    }

    /// Reads a config object over the current values; relative paths resolve against `base`.
    mutating func apply(json: JSONValue, base: String) throws(JSONFieldError) {
        let fields = try ConfigFields(json)
        try fields.rejectUnknown(Self.fileKeys)
        listen = try fields.parsed("listen", ListenAddress.expectation, ListenAddress.parse) ?? listen
        healthListen =
            try fields.parsed("healthListen", ListenAddress.expectation, ListenAddress.parse) ?? healthListen
        if let directory = try fields.string("dataDirectory") {
            guard !directory.isEmpty else { throw fields.error("dataDirectory", "must be a directory path") }
            dataDirectory = FileSystem.absolute(directory, relativeTo: base)
        }
        clock = try fields.parsed("clock", ClockMode.expectation) { ClockMode(rawValue: $0) } ?? clock
        threads = try fields.integer("threads", in: 1...Self.maxThreads) ?? threads
        logLevel = try fields.parsed("logLevel", LogLevel.expectation) { LogLevel(rawValue: $0) } ?? logLevel
        logFormat = try fields.parsed("logFormat", "text or json") { RelayLog.Format(name: $0) } ?? logFormat
        if let object = try fields.object("metrics") {
            try object.rejectUnknown(["listen"])
            metricsListen = try object.parsed("listen", ListenAddress.expectation, ListenAddress.parse)
        }
        if let object = try fields.object("tls") { tls = try TLSFiles(fields: object, base: base) }
        if let keys = try fields.array("providerKeys", limit: ProviderKeyConfiguration.maxCount) {
            providerKeys = try Self.providerKeys(keys, base: base)
        }
        if let rulesJSON = fields.value("rules") { rules = try RelayRules(json: rulesJSON, path: "rules") }
        if let object = try fields.object("http") { http = try HTTPLimits(fields: object) }
        if let object = try fields.object("retention") { retention = try LogRetention(fields: object) }
        if let object = try fields.object("durability") { durability = try DurabilitySettings(fields: object) }
        if let object = try fields.object("stream") { stream = try StreamSettings(fields: object) }
        if let object = try fields.object("faults") { faults = try FaultSettings(fields: object) }
        if let object = try fields.object("console") { console = try ConsoleSettings(fields: object) }
        if let object = try fields.object("store") {
            try object.rejectUnknown(["redisCluster"])
            if let cluster = try object.object("redisCluster") {
                self.cluster = try ClusterSettings(fields: cluster, base: base)
            }
        }
        providerRefusalLimit =
            try fields.integer("providerRefusalLimit", in: 0...Self.maxProviderRefusalLimit) ?? providerRefusalLimit
        if let elements = try fields.array("broadcastBundleIds", limit: 10_000) {
            broadcastBundleIDs = try AllowedBundleIDs(elements, fields: fields, key: "broadcastBundleIds")
        }
    }

    /// The `providerKeys` entries; a key ID may appear once and may not be the development key's.
    private static func providerKeys(_ elements: [JSONValue], base: String) throws(JSONFieldError)
        -> [ProviderKeyConfiguration]
    {
        var keys: [ProviderKeyConfiguration] = []
        var origins: [String: String] = [:]
        for (index, element) in elements.enumerated() {
            let fields = try ConfigFields(element, path: "providerKeys[\(index)]")
            let key = try ProviderKeyConfiguration(fields: fields, base: base)
            if key.keyID == DataDirectory.devKeyID {
                throw fields.error("keyId", "is the development key's ID; choose another")
            }
            if let earlier = origins[key.keyID] {
                throw fields.error("keyId", "is already used by \(earlier)")
            }
            origins[key.keyID] = key.origin
            keys.append(key)
        }
        return keys
    }
}
