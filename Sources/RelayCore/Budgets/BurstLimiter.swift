/// The burst limit on pushes to one device token: past `RelayRules.tokenBurst` (default 20, refilled
/// one per second) the provider API answers `429 TooManyRequests`, as APNs does for "too many
/// consecutive requests to the same device token".
package struct BurstLimiter: RuleBoundBucket {
    /// Follows `RelayRules.tokenBurst`.
    package static func rule(in rules: RelayRules) -> BucketRule { rules.tokenBurst }

    /// The tokens.
    package var bucket: TokenBucket

    /// A limiter restored from its bucket.
    package init(bucket: TokenBucket) { self.bucket = bucket }

    /// Admits one push at `now` (after following any change to the rules); false means `429 TooManyRequests`.
    package mutating func admit(rules: RelayRules, at now: UnixSeconds) -> Bool { take(rules: rules, at: now) }
}
