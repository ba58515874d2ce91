/// The burst limit on pushes to one device token: past `RelayRules.tokenBurst` (default 20, refilled
/// one per second) the provider API answers `429 TooManyRequests`, as APNs does for "too many
/// consecutive requests to the same device token".
public struct BurstLimiter: RuleBoundBucket {
    /// Follows `RelayRules.tokenBurst`.
    public static func rule(in rules: RelayRules) -> BucketRule { rules.tokenBurst }

    /// The tokens.
    public var bucket: TokenBucket

    /// A limiter restored from its bucket.
    public init(bucket: TokenBucket) { self.bucket = bucket }

    /// Admits one push at `now` (after following any change to the rules); false means `429 TooManyRequests`.
    public mutating func admit(rules: RelayRules, at now: UnixSeconds) -> Bool { take(rules: rules, at: now) }
}
