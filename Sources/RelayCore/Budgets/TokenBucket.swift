package import RelayJSON

/// A token bucket: up to `capacity` tokens, refilled continuously at `refillPerSecond`; each take spends one.
///
/// Pure: the time is passed to every call and the bucket only remembers its token count as of
/// `updatedAt`. Time running backwards never refills or un-spends tokens. Rounding in the refill
/// arithmetic is absorbed by a tolerance of a billionth of a token, and `availableAt` is checked
/// against `take`, so `take(at: availableAt(now))` always succeeds.
package struct TokenBucket: Sendable, Hashable {
    /// Tokens a full bucket holds.
    package private(set) var capacity: Int
    /// Tokens regained per second.
    package private(set) var refillPerSecond: Double
    /// Tokens in the bucket at `updatedAt` (fractional while refilling).
    package private(set) var tokens: Double
    /// The time `tokens` was last brought up to date.
    package private(set) var updatedAt: UnixSeconds

    /// How far below a whole token still counts as one, to absorb floating-point rounding.
    static let tolerance = 1e-9

    /// A full bucket as of `now`. A negative capacity or refill rate counts as 0.
    package init(capacity: Int, refillPerSecond: Double, at now: UnixSeconds) {
        self.init(
            capacity: capacity, refillPerSecond: refillPerSecond, tokens: Double(max(0, capacity)), updatedAt: now)
    }

    /// A bucket restored from its parts; `tokens` is clamped to `0...capacity`.
    package init(capacity: Int, refillPerSecond: Double, tokens: Double, updatedAt: UnixSeconds) {
        self.capacity = max(0, capacity)
        self.refillPerSecond = refillPerSecond > 0 && refillPerSecond.isFinite ? refillPerSecond : 0
        self.tokens = tokens.isFinite ? min(max(0, tokens), Double(self.capacity)) : 0
        self.updatedAt = updatedAt
    }

    /// Tokens in the bucket at `time`, fractional while refilling.
    package func tokens(at time: UnixSeconds) -> Double {
        let elapsed = time - updatedAt
        guard elapsed > 0 else { return tokens }
        return min(Double(capacity), tokens + elapsed * refillPerSecond)
    }

    /// Whole tokens available at `time`: how many takes would succeed right then.
    package func remaining(at time: UnixSeconds) -> Int {
        Int((tokens(at: time) + Self.tolerance).rounded(.down))
    }

    /// The earliest time at or after `now` when a take succeeds: `now` if a token is there, else when the
    /// next one will have refilled. `+infinity` when the bucket can never hold a token.
    package func availableAt(_ now: UnixSeconds) -> UnixSeconds {
        let current = tokens(at: now)
        if current + Self.tolerance >= 1 { return now }
        guard refillPerSecond > 0, capacity >= 1 else { return .infinity }
        var candidate = now + (1 - current) / refillPerSecond
        // The division may round a hair early; step up by ulps until `take` would agree (a few at most).
        var steps = 0
        while tokens(at: candidate) + Self.tolerance < 1, steps < 64 {
            candidate = candidate.nextUp
            steps += 1
        }
        return candidate
    }

    /// Spends one token at `now` if one is there; returns whether it did.
    package mutating func take(at now: UnixSeconds) -> Bool {
        settle(at: now)
        guard tokens + Self.tolerance >= 1 else { return false }
        tokens = max(0, tokens - 1)
        return true
    }

    /// Changes capacity and refill rate at `now`, keeping the tokens already drawn: a bucket with 3 of 10
    /// drawn has 57 of 60 after growing, and 7 of 10 again after shrinking back (never below 0).
    package mutating func reconfigure(capacity newCapacity: Int, refillPerSecond newRate: Double, at now: UnixSeconds) {
        settle(at: now)
        let drawn = Double(capacity) - tokens
        self = TokenBucket(
            capacity: newCapacity, refillPerSecond: newRate, tokens: Double(max(0, newCapacity)) - drawn,
            updatedAt: updatedAt)
    }

    /// Brings `tokens` up to date at `now`; a time before `updatedAt` changes nothing.
    private mutating func settle(at now: UnixSeconds) {
        guard now > updatedAt else { return }
        tokens = tokens(at: now)
        updatedAt = now
    }
}

// MARK: - JSON

extension TokenBucket {
    /// `{"capacity", "refillPerSecond", "tokens", "updatedAt"}`, for storage.
    package var json: JSONValue {
        .object([
            "capacity": .int(Int64(capacity)),
            "refillPerSecond": .number(refillPerSecond),
            "tokens": .number(tokens),
            "updatedAt": .number(updatedAt),
        ])
    }

    /// Restores a bucket written by `json`; errors name the member (prefixed with `path`).
    package init(json: JSONValue, path: String = "") throws(JSONFieldError) {
        try self.init(fields: JSONFields(json, path: path))
    }

    /// Reads the bucket's members from `fields` (shared with `UpdateBudget`, which adds one).
    init(fields: JSONFields) throws(JSONFieldError) {
        let capacity = try fields.requireInteger("capacity")
        guard capacity >= 0 else { throw fields.error("capacity", "must not be negative") }
        let rate = try fields.requireNumber("refillPerSecond")
        guard rate >= 0 else { throw fields.error("refillPerSecond", "must not be negative") }
        let tokens = try fields.requireNumber("tokens")
        guard tokens >= 0, tokens <= Double(capacity) else {
            throw fields.error("tokens", "must be from 0 to capacity")
        }
        self.init(
            capacity: capacity, refillPerSecond: rate, tokens: tokens, updatedAt: try fields.requireNumber("updatedAt"))
    }
}
