package import RelayJSON

/// Every number the emulated device and the provider API enforce, with Apple's values as defaults.
///
/// Apple documents the lifetimes and sizes; it does not publish the budgets ("a certain budget per
/// hour", "about ten quick starts"), so those defaults are the relay's choice, stated here and in the
/// README, and all of them can be set from the config file's `rules` object (see `init(json:)`).
/// Durations are in seconds.
public struct RelayRules: Sendable, Hashable {
    /// How long an activity may stay active (or stale) before the system ends it. Default 8 h.
    package var activeLifetime: Double = 8 * 3600
    /// How long an ended activity stays visible under the default dismissal policy. Default 4 h.
    package var dismissalWindow: Double = 4 * 3600
    /// The longest an activity is ever visible, from start to dismissal. Default 12 h.
    package var maxVisibleLifetime: Double = 12 * 3600
    /// The limit on attributes + content state, measured as compact JSON bytes. Default 4096.
    package var maxActivityDataBytes: Int = 4096
    /// Priority-10 push updates per activity per hour. Default 10.
    package var updateBudgetPerHour: Int = 10
    /// Priority-10 push updates per activity per hour when the app has `frequentPushesEnabled`. Default 60.
    package var frequentUpdateBudgetPerHour: Int = 60
    /// When true an update over budget is refused (`429`) instead of deferred and coalesced. Default false.
    package var strictBudget: Bool = false
    /// How long a low-priority (5 or 1) update is held before it is applied; later ones coalesce into it. Default 15 s.
    package var lowPriorityDelay: Double = 15
    /// Push-to-start budget per device and app. Default 10 starts, then one more every 360 s.
    package var pushToStartBudget = BucketRule(capacity: 10, refillInterval: 360)
    /// Pushes to one token in a burst before `429 TooManyRequests`. Default 20, refilled one per second.
    package var tokenBurst = BucketRule(capacity: 20, refillInterval: 1)
    /// A provider token may be replaced on a connection at most once per this many seconds. Default 1200 (20 min).
    package var providerTokenRefreshInterval: Double = 1200

    /// The defaults.
    package init() {}

    /// The defaults, by name.
    public static let defaults = RelayRules()

    /// Priority-10 updates allowed per hour for an app with or without frequent pushes.
    package func updatesPerHour(frequentPushesEnabled: Bool) -> Int {
        frequentPushesEnabled ? frequentUpdateBudgetPerHour : updateBudgetPerHour
    }

    /// The largest count a config may set (budgets, capacities).
    static let maxCount = 1_000_000
    /// The longest duration a config may set: 366 days.
    static let maxDuration: Double = 366 * 86_400
    /// The largest `maxActivityDataBytes` a config may set: 1 MiB.
    static let maxDataBytes = 1 << 20
}

// MARK: - JSON

extension RelayRules {
    /// The config keys, as written in the `rules` object.
    static let keys: Set<String> = [
        "activeLifetime", "dismissalWindow", "maxVisibleLifetime", "maxActivityDataBytes", "updateBudgetPerHour",
        "frequentUpdateBudgetPerHour", "strictBudget", "lowPriorityDelay", "pushToStartBudget", "tokenBurst",
        "providerTokenRefreshInterval",
    ]

    /// Reads rules from a config object. Keys left out keep their defaults; an unknown key, a value of
    /// the wrong type or out of range is an error naming the key (prefixed with `path`, e.g. `rules.`).
    package init(json: JSONValue, path: String = "") throws(JSONFieldError) {
        let fields = try JSONFields(json, path: path)
        try fields.rejectUnknown(Self.keys)
        self.init()
        activeLifetime = try Self.duration(fields, "activeLifetime", allowZero: false) ?? activeLifetime
        dismissalWindow = try Self.duration(fields, "dismissalWindow", allowZero: true) ?? dismissalWindow
        maxVisibleLifetime = try Self.duration(fields, "maxVisibleLifetime", allowZero: false) ?? maxVisibleLifetime
        maxActivityDataBytes =
            try Self.count(fields, "maxActivityDataBytes", upTo: Self.maxDataBytes) ?? maxActivityDataBytes
        updateBudgetPerHour = try Self.count(fields, "updateBudgetPerHour", upTo: Self.maxCount) ?? updateBudgetPerHour
        frequentUpdateBudgetPerHour =
            try Self.count(fields, "frequentUpdateBudgetPerHour", upTo: Self.maxCount) ?? frequentUpdateBudgetPerHour
        strictBudget = try fields.bool("strictBudget") ?? strictBudget
        lowPriorityDelay = try Self.duration(fields, "lowPriorityDelay", allowZero: true) ?? lowPriorityDelay
        if let bucket = try fields.object("pushToStartBudget") {
            pushToStartBudget = try BucketRule.decode(bucket, defaults: pushToStartBudget)
        }
        if let bucket = try fields.object("tokenBurst") {
            tokenBurst = try BucketRule.decode(bucket, defaults: tokenBurst)
        }
        providerTokenRefreshInterval =
            try Self.duration(fields, "providerTokenRefreshInterval", allowZero: true) ?? providerTokenRefreshInterval
        guard maxVisibleLifetime >= activeLifetime else {
            throw JSONFieldError(
                key: fields.keyPath("maxVisibleLifetime"), found: .number(maxVisibleLifetime),
                message: "must be at least activeLifetime (\(activeLifetime))")
        }
    }

    /// Every rule, in the shape `init(json:)` reads.
    package var json: JSONValue {
        .object([
            "activeLifetime": .number(activeLifetime),
            "dismissalWindow": .number(dismissalWindow),
            "maxVisibleLifetime": .number(maxVisibleLifetime),
            "maxActivityDataBytes": .int(Int64(maxActivityDataBytes)),
            "updateBudgetPerHour": .int(Int64(updateBudgetPerHour)),
            "frequentUpdateBudgetPerHour": .int(Int64(frequentUpdateBudgetPerHour)),
            "strictBudget": .bool(strictBudget),
            "lowPriorityDelay": .number(lowPriorityDelay),
            "pushToStartBudget": pushToStartBudget.json,
            "tokenBurst": tokenBurst.json,
            "providerTokenRefreshInterval": .number(providerTokenRefreshInterval),
        ])
    }

    private static func duration(_ fields: JSONFields, _ key: String, allowZero: Bool) throws(JSONFieldError)
        -> Double?
    {
        guard let seconds = try fields.number(key) else { return nil }
        guard seconds >= 0, allowZero || seconds > 0, seconds <= maxDuration else {
            let floor = allowZero ? "from 0" : "above 0"
            throw fields.error(key, "must be seconds \(floor) and at most \(Int(maxDuration))")
        }
        return seconds
    }

    private static func count(_ fields: JSONFields, _ key: String, upTo limit: Int) throws(JSONFieldError) -> Int? {
        guard let number = try fields.integer(key) else { return nil }
        guard (1...limit).contains(number) else { throw fields.error(key, "must be a whole number from 1 to \(limit)") }
        return number
    }
}
