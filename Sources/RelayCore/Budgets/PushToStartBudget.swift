/// The push-to-start budget of one app on one device: about ten quick starts, then starts are dropped
/// until the budget refills (`RelayRules.pushToStartBudget`, default one more every 360 s).
///
/// Apple's device log says "Push-to-start budget exceeded ... not starting activity"; the provider
/// still answers `200`, so a refused take becomes a `dropped` outcome, not an HTTP error.
package struct PushToStartBudget: RuleBoundBucket {
    /// What one budget belongs to: a device and an app on it.
    package struct Key: Sendable, Hashable {
        /// The emulated device.
        package let deviceId: String
        /// The app's bundle ID.
        package let bundleId: String

        /// The key for `bundleId` on `deviceId`.
        package init(deviceId: String, bundleId: String) {
            self.deviceId = deviceId
            self.bundleId = bundleId
        }
    }

    /// Follows `RelayRules.pushToStartBudget`.
    package static func rule(in rules: RelayRules) -> BucketRule { rules.pushToStartBudget }

    /// The tokens.
    package var bucket: TokenBucket

    /// A budget restored from its bucket.
    package init(bucket: TokenBucket) { self.bucket = bucket }
}
