/// The burst limit on pushes to one device token: past `RelayRules.tokenBurst` (default 20, refilled
/// one per second) the provider API answers `429 TooManyRequests`, as APNs does for "too many
/// consecutive requests to the same device token".
public struct BurstLimiter: Sendable, Hashable {
    /// The tokens.
    public private(set) var bucket: TokenBucket

    /// A full limiter as of `now`.
    public init(rules: RelayRules, at now: UnixSeconds) {
        bucket = rules.tokenBurst.bucket(at: now)
    }

    /// A limiter restored from its bucket.
    public init(bucket: TokenBucket) { self.bucket = bucket }

    /// Admits one push at `now` (after following any change to the rules); false means `429`.
    public mutating func admit(rules: RelayRules, at now: UnixSeconds) -> Bool {
        let rule = rules.tokenBurst
        if rule.capacity != bucket.capacity || rule.refillPerSecond != bucket.refillPerSecond {
            bucket.reconfigure(capacity: rule.capacity, refillPerSecond: rule.refillPerSecond, at: now)
        }
        return bucket.take(at: now)
    }

    /// When the next push will be admitted (`now` if it already would be).
    public func availableAt(_ now: UnixSeconds) -> UnixSeconds { bucket.availableAt(now) }

    /// Pushes left in the burst at `time`.
    public func remaining(at time: UnixSeconds) -> Int { bucket.remaining(at: time) }

    /// Whether the limiter is full at `time`, i.e. forgetting it changes nothing (lets callers prune idle tokens).
    public func isIdle(at time: UnixSeconds) -> Bool { bucket.tokens(at: time) >= Double(bucket.capacity) }

    /// The bucket's JSON, for storage.
    public var json: JSONValue { bucket.json }

    /// Restores a limiter written by `json`.
    public init(json: JSONValue, path: String = "") throws(JSONFieldError) {
        bucket = try TokenBucket(json: json, path: path)
    }
}
