package import RelayJSON

/// The hourly budget of priority-10 push updates of one activity.
///
/// A bucket of `updateBudgetPerHour` tokens (or `frequentUpdateBudgetPerHour` while the app has
/// frequent pushes enabled) refilled evenly over the hour. Switching between the two keeps the
/// tokens already drawn (see `TokenBucket.reconfigure`). Rules read from a config with a budget
/// below 1 per hour are rejected; one built in code with such a value counts as 1 per hour.
package struct UpdateBudget: Sendable, Hashable {
    /// The tokens; capacity and rate follow the rules and the frequent-pushes setting last seen.
    package private(set) var bucket: TokenBucket
    /// Whether the bucket is sized for frequent pushes.
    package private(set) var frequentPushesEnabled: Bool

    /// A full budget as of `now`.
    package init(frequentPushesEnabled: Bool, rules: RelayRules, at now: UnixSeconds) {
        let perHour = Self.perHour(frequentPushesEnabled: frequentPushesEnabled, rules: rules)
        self.bucket = TokenBucket(capacity: perHour, refillPerSecond: Double(perHour) / 3600, at: now)
        self.frequentPushesEnabled = frequentPushesEnabled
    }

    /// A budget restored from its parts.
    package init(bucket: TokenBucket, frequentPushesEnabled: Bool) {
        self.bucket = bucket
        self.frequentPushesEnabled = frequentPushesEnabled
    }

    /// Updates per hour for the setting under `rules`, at least 1.
    static func perHour(frequentPushesEnabled: Bool, rules: RelayRules) -> Int {
        max(1, rules.updatesPerHour(frequentPushesEnabled: frequentPushesEnabled))
    }

    /// Resizes the bucket for the setting and rules at `now`, keeping drawn tokens. Returns whether anything changed.
    @discardableResult
    package mutating func configure(frequentPushesEnabled: Bool, rules: RelayRules, at now: UnixSeconds) -> Bool {
        let perHour = Self.perHour(frequentPushesEnabled: frequentPushesEnabled, rules: rules)
        let rate = Double(perHour) / 3600
        self.frequentPushesEnabled = frequentPushesEnabled
        guard perHour != bucket.capacity || rate != bucket.refillPerSecond else { return false }
        bucket.reconfigure(capacity: perHour, refillPerSecond: rate, at: now)
        return true
    }

    /// Draws one update at `now` under the current size; returns whether the budget allowed it.
    package mutating func take(at now: UnixSeconds) -> Bool { bucket.take(at: now) }

    /// When the next update will be within budget (`now` if it already is).
    package func availableAt(_ now: UnixSeconds) -> UnixSeconds { bucket.availableAt(now) }

    /// Updates left in the budget at `time`.
    package func remaining(at time: UnixSeconds) -> Int { bucket.remaining(at: time) }
}

// MARK: - JSON

extension UpdateBudget {
    /// The bucket's members plus `frequentPushesEnabled`, for storage.
    package var json: JSONValue {
        guard case .object(var members) = bucket.json else { return bucket.json }
        members["frequentPushesEnabled"] = .bool(frequentPushesEnabled)
        return .object(members)
    }

    /// Restores a budget written by `json`; errors name the member (prefixed with `path`).
    package init(json: JSONValue, path: String = "") throws(JSONFieldError) {
        let fields = try JSONFields(json, path: path)
        self.init(
            bucket: try TokenBucket(fields: fields),
            frequentPushesEnabled: try fields.requireBool("frequentPushesEnabled"))
    }
}
