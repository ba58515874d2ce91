package import RelayJSON

/// Per-activity tallies of what happened to its updates, for the push log and rate-limit testing.
package struct ActivityCounters: Sendable, Hashable {
    /// Updates shown (at once or after being held).
    package var applied = 0
    /// Updates held for the first time (nothing else pending).
    package var deferred = 0
    /// Updates held that replaced an older held one.
    package var coalesced = 0
    /// Held updates dropped (replaced, made obsolete by newer data, or cut off by the end).
    package var discarded = 0
    /// Updates ignored as older than the newest data.
    package var ignoredStale = 0
    /// Updates refused over budget in strict mode.
    package var refusedOverBudget = 0
    /// Updates rejected (ended, too large, invalid).
    package var rejected = 0

    /// All zero.
    package init() {}

    /// The counters' JSON keys, in the order `init(json:)` reads them.
    static let keys = [
        "applied", "deferred", "coalesced", "discarded", "ignoredStale", "refusedOverBudget", "rejected",
    ]

    /// Every counter by name.
    package var json: JSONValue {
        .object([
            "applied": .int(Int64(applied)), "deferred": .int(Int64(deferred)), "coalesced": .int(Int64(coalesced)),
            "discarded": .int(Int64(discarded)), "ignoredStale": .int(Int64(ignoredStale)),
            "refusedOverBudget": .int(Int64(refusedOverBudget)), "rejected": .int(Int64(rejected)),
        ])
    }

    /// Restores counters written by `json`; a missing counter is 0, a negative one an error.
    package init(json: JSONValue, path: String = "") throws(JSONFieldError) {
        let fields = try JSONFields(json, path: path)
        var values: [Int] = []
        for key in Self.keys {
            let value = try fields.integer(key) ?? 0
            guard value >= 0 else { throw fields.error(key, "must not be negative") }
            values.append(value)
        }
        (applied, deferred, coalesced, discarded) = (values[0], values[1], values[2], values[3])
        (ignoredStale, refusedOverBudget, rejected) = (values[4], values[5], values[6])
    }
}
