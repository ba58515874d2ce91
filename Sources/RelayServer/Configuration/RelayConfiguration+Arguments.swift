/// The command-line flags of `serve` and `token`. Flags take their value as the next argument
/// or after `=` (`--listen 0.0.0.0:8443`, `--listen=0.0.0.0:8443`); each may be given once;
/// flags override the config file.
extension RelayConfiguration {
    /// `serve`'s synopsis, quoted in errors about its arguments.
    package static let serveUsage =
        "serve [--config FILE] [--listen HOST:PORT] [--data DIR] [--clock system|virtual] [--threads N] [--log-format text|json]"
        + " [--redis-cluster HOST:PORT,...]"
    /// `token`'s synopsis, quoted in errors about its arguments.
    package static let tokenUsage = "token [--data DIR]"

    /// Parses `serve`'s arguments (those after the word `serve`): reads `--config FILE` when
    /// given, then applies the other flags over it. Relative paths in flags resolve against
    /// `workingDirectory` (the process's working directory when nil).
    public static func parse(arguments: [String], workingDirectory: String? = nil) throws(ConfigurationError)
        -> RelayConfiguration
    {
        let base = workingDirectory ?? FileSystem.currentDirectory()
        let flags = try scan(
            arguments, command: "activity-relay serve", usage: serveUsage,
            allowed: ["--config", "--listen", "--data", "--clock", "--threads", "--log-format", "--redis-cluster"])
        var configuration = RelayConfiguration(workingDirectory: base)
        if let file = flags["--config"] {
            guard !file.isEmpty else { throw ConfigurationError("--config", "needs a file path") }
            try configuration.apply(configFile: file, workingDirectory: base)
        }
        if let text = flags["--listen"] {
            guard let address = ListenAddress.parse(text) else {
                throw ConfigurationError(
                    "--listen", "\(ConfigurationError.quoted(text)) is not \(ListenAddress.expectation)")
            }
            configuration.listen = address
        }
        if let directory = flags["--data"] { configuration.dataDirectory = try dataDirectory(directory, base) }
        if let text = flags["--clock"] {
            guard let mode = ClockMode(rawValue: text) else {
                throw ConfigurationError(
                    "--clock", "\(ConfigurationError.quoted(text)) is not \(ClockMode.expectation)")
            }
            configuration.clock = mode
        }
        if let text = flags["--threads"] {
            guard let count = parseThreads(text) else {
                throw ConfigurationError("--threads", "\(ConfigurationError.quoted(text)) is not \(threadsExpectation)")
            }
            configuration.threads = count
        }
        if let text = flags["--log-format"] {
            guard let format = RelayLog.Format(name: text) else {
                throw ConfigurationError("--log-format", "\(ConfigurationError.quoted(text)) is not text or json")
            }
            configuration.logFormat = format
        }
        if let text = flags["--redis-cluster"] {
            guard let seeds = ClusterSettings.parseSeeds(text) else {
                throw ConfigurationError(
                    "--redis-cluster",
                    "\(ConfigurationError.quoted(text)) is not a comma-separated list of \(ClusterSettings.seedExpectation)"
                )
            }
            var cluster = configuration.cluster ?? ClusterSettings(seeds: seeds)
            cluster.seeds = seeds
            configuration.cluster = cluster
        }
        return configuration
    }

    /// Parses `token`'s arguments: only `--data DIR`; everything else keeps its default.
    package static func parseToken(arguments: [String], workingDirectory: String? = nil) throws(ConfigurationError)
        -> RelayConfiguration
    {
        let base = workingDirectory ?? FileSystem.currentDirectory()
        let flags = try scan(arguments, command: "activity-relay token", usage: tokenUsage, allowed: ["--data"])
        var configuration = RelayConfiguration(workingDirectory: base)
        if let directory = flags["--data"] { configuration.dataDirectory = try dataDirectory(directory, base) }
        return configuration
    }

    private static func dataDirectory(_ text: String, _ base: String) throws(ConfigurationError) -> String {
        guard !text.isEmpty else { throw ConfigurationError("--data", "needs a directory path") }
        return FileSystem.absolute(text, relativeTo: base)
    }

    /// Splits arguments into flag values; unknown flags, repeated flags, missing values and
    /// arguments that are not flags are errors.
    private static func scan(_ arguments: [String], command: String, usage: String, allowed: Set<String>)
        throws(ConfigurationError) -> [String: String]
    {
        var values: [String: String] = [:]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--") else {
                throw ConfigurationError(
                    command, "unexpected argument \(ConfigurationError.quoted(argument)) (usage: \(usage))")
            }
            var flag = argument
            var value: String?
            if let equals = argument.firstIndex(of: "=") {
                flag = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            }
            guard allowed.contains(flag) else {
                throw ConfigurationError(command, "unknown option \(ConfigurationError.quoted(flag)) (usage: \(usage))")
            }
            guard values[flag] == nil else { throw ConfigurationError(flag, "is given more than once") }
            if value == nil {
                guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                    throw ConfigurationError(flag, "needs a value (usage: \(usage))")
                }
                value = arguments[index]
                index += 1
            }
            values[flag] = value
        }
        return values
    }
}
