package import RelayJSON

/// The shape of a token-bucket budget in the rules: how many tokens it holds and how fast it refills.
///
/// Written as "one token every `refillInterval` seconds" because that is how people state such
/// limits ("ten starts, then one more every six minutes").
package struct BucketRule: Sendable, Hashable {
    /// Tokens a full bucket holds: how many takes a burst may make. At least 1.
    package var capacity: Int
    /// Seconds for one token to come back. Greater than 0.
    package var refillInterval: Double

    /// A rule of `capacity` tokens refilled one per `refillInterval` seconds.
    package init(capacity: Int, refillInterval: Double) {
        self.capacity = capacity
        self.refillInterval = refillInterval
    }

    /// Tokens regained per second; 0 when the interval is not a positive number (the bucket never refills).
    package var refillPerSecond: Double {
        refillInterval > 0 && refillInterval.isFinite ? 1 / refillInterval : 0
    }

    /// A full bucket following this rule, as of `now`.
    package func bucket(at now: UnixSeconds) -> TokenBucket {
        TokenBucket(capacity: capacity, refillPerSecond: refillPerSecond, at: now)
    }

    /// `{"capacity": n, "refillInterval": seconds}`.
    package var json: JSONValue {
        .object(["capacity": .int(Int64(capacity)), "refillInterval": .number(refillInterval)])
    }

    /// Reads a rule from `fields`; members left out keep the value in `defaults`.
    static func decode(_ fields: JSONFields, defaults: BucketRule) throws(JSONFieldError) -> BucketRule {
        try fields.rejectUnknown(["capacity", "refillInterval"])
        var rule = defaults
        if let capacity = try fields.integer("capacity") {
            guard (1...RelayRules.maxCount).contains(capacity) else {
                throw fields.error("capacity", "must be a whole number from 1 to \(RelayRules.maxCount)")
            }
            rule.capacity = capacity
        }
        if let interval = try fields.number("refillInterval") {
            guard interval > 0, interval <= RelayRules.maxDuration else {
                throw fields.error(
                    "refillInterval", "must be seconds above 0 and at most \(Int(RelayRules.maxDuration))")
            }
            rule.refillInterval = interval
        }
        return rule
    }
}
