package import RelayJSON

/// A token bucket sized by one `BucketRule` of the rules, which follows the rule when it changes
/// (keeping the tokens already drawn). The push-to-start budget and the per-token burst limiter
/// are the two; they differ only in which rule they follow.
package protocol RuleBoundBucket: Sendable, Hashable {
    /// The rule this bucket follows.
    static func rule(in rules: RelayRules) -> BucketRule
    /// The tokens.
    var bucket: TokenBucket { get set }
    /// A bucket restored from its tokens.
    init(bucket: TokenBucket)
}

extension RuleBoundBucket {
    /// A full bucket as of `now`.
    package init(rules: RelayRules, at now: UnixSeconds) {
        self.init(bucket: Self.rule(in: rules).bucket(at: now))
    }

    /// Restores a bucket written by `json`.
    package init(json: JSONValue, path: String = "") throws(JSONFieldError) {
        self.init(bucket: try TokenBucket(json: json, path: path))
    }

    /// Draws one token at `now`, after following any change to the rule; false when none is left.
    package mutating func take(rules: RelayRules, at now: UnixSeconds) -> Bool {
        let rule = Self.rule(in: rules)
        if rule.capacity != bucket.capacity || rule.refillPerSecond != bucket.refillPerSecond {
            bucket.reconfigure(capacity: rule.capacity, refillPerSecond: rule.refillPerSecond, at: now)
        }
        return bucket.take(at: now)
    }

    /// When the next token is there (`now` if one already is).
    package func availableAt(_ now: UnixSeconds) -> UnixSeconds { bucket.availableAt(now) }

    /// Whole tokens left at `time`.
    package func remaining(at time: UnixSeconds) -> Int { bucket.remaining(at: time) }

    /// Whether the bucket is full at `time`, i.e. forgetting it changes nothing (lets callers prune idle keys).
    package func isIdle(at time: UnixSeconds) -> Bool { bucket.tokens(at: time) >= Double(bucket.capacity) }

    /// The bucket's JSON, for storage.
    package var json: JSONValue { bucket.json }
}
