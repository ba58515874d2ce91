/// The push-to-start budget of one app on one device: about ten quick starts, then starts are dropped
/// until the budget refills (`RelayRules.pushToStartBudget`, default one more every 360 s).
///
/// Apple's device log says "Push-to-start budget exceeded ... not starting activity"; the provider
/// still answers `200`, so a refused take becomes a `dropped` outcome, not an HTTP error.
public struct PushToStartBudget: Sendable, Hashable {
    /// What one budget belongs to: a device and an app on it.
    public struct Key: Sendable, Hashable {
        /// The emulated device.
        public let deviceId: String
        /// The app's bundle ID.
        public let bundleId: String

        /// The key for `bundleId` on `deviceId`.
        public init(deviceId: String, bundleId: String) {
            self.deviceId = deviceId
            self.bundleId = bundleId
        }
    }

    /// The tokens.
    public private(set) var bucket: TokenBucket

    /// A full budget as of `now`.
    public init(rules: RelayRules, at now: UnixSeconds) {
        bucket = rules.pushToStartBudget.bucket(at: now)
    }

    /// A budget restored from its bucket.
    public init(bucket: TokenBucket) { self.bucket = bucket }

    /// Draws one start at `now` (after following any change to the rules); returns whether it may start.
    public mutating func take(rules: RelayRules, at now: UnixSeconds) -> Bool {
        let rule = rules.pushToStartBudget
        if rule.capacity != bucket.capacity || rule.refillPerSecond != bucket.refillPerSecond {
            bucket.reconfigure(capacity: rule.capacity, refillPerSecond: rule.refillPerSecond, at: now)
        }
        return bucket.take(at: now)
    }

    /// When the next start will be allowed (`now` if it already is).
    public func availableAt(_ now: UnixSeconds) -> UnixSeconds { bucket.availableAt(now) }

    /// Starts left at `time`.
    public func remaining(at time: UnixSeconds) -> Int { bucket.remaining(at: time) }

    /// Whether the budget is full at `time`, i.e. forgetting it changes nothing (lets callers prune idle keys).
    public func isIdle(at time: UnixSeconds) -> Bool { bucket.tokens(at: time) >= Double(bucket.capacity) }

    /// The bucket's JSON, for storage.
    public var json: JSONValue { bucket.json }

    /// Restores a budget written by `json`.
    public init(json: JSONValue, path: String = "") throws(JSONFieldError) {
        bucket = try TokenBucket(json: json, path: path)
    }
}
