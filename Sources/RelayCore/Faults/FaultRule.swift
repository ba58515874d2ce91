/// One injected provider-API failure (CONTRACT section 5, "Faults"): what it does, which pushes
/// it applies to and how many of them. Pure: the caller passes the times.
package struct FaultRule: Sendable, Hashable {
    /// What the fault does to a push it fires on.
    package enum Action: Sendable, Hashable {
        /// Answer `status` with `{"reason": reason}`; the device never sees the push.
        case error(status: Int, reason: String)
        /// Answer after an added delay in milliseconds, `minMs` to `maxMs` (equal for a fixed delay).
        case latency(minMs: Double, maxMs: Double)
        /// Refuse the push's stream (RST_STREAM REFUSED_STREAM) and close the connection with
        /// GOAWAY `{"reason": reason}` once it has carried `afterStreams` pushes.
        case goaway(afterStreams: Int, reason: String)
        /// Drop the connection mid-stream, with no answer and no TLS close.
        case reset
        /// Refuse every TLS handshake for `seconds` from the rule's creation.
        case refuseHandshakes(seconds: Double)

        /// The `kind` member.
        package var kind: String {
            switch self {
            case .error: "error"
            case .latency: "latency"
            case .goaway: "goaway"
            case .reset: "reset"
            case .refuseHandshakes: "refuseHandshakes"
            }
        }
    }

    /// Assigned by the plan (`f1`, `f2`, ...).
    package var id: String
    package var action: Action
    /// Only pushes for this app; nil for every app.
    package var bundleId: String?
    /// Only pushes to this device token (lowercase hex); nil for every token.
    package var token: String?
    /// The chance, 0 to 1, that a matching push is hit; 1 hits every one.
    package var share: Double
    /// How many more pushes it may hit; nil without limit.
    package var remaining: Int?
    /// The seed of the rule's own generator (shares and latency draws).
    package var seed: UInt64
    /// When the rule was added (real Unix seconds; the start of a handshake window).
    package var createdAt: Double
    /// Pushes it was considered for, and pushes it hit.
    package var matched = 0
    package var injected = 0
    var generator: SeededGenerator

    package init(
        id: String, action: Action, bundleId: String? = nil, token: String? = nil, share: Double = 1,
        remaining: Int? = nil, seed: UInt64 = 1, createdAt: Double = 0
    ) {
        self.id = id
        self.action = action
        self.bundleId = bundleId
        self.token = token
        self.share = share
        self.remaining = remaining
        self.seed = seed
        self.createdAt = createdAt
        generator = SeededGenerator(seed: seed)
    }

    /// Whether a push for `bundleId` to `token` falls under the rule's scope.
    func covers(bundleId: String, token: String) -> Bool {
        (self.bundleId == nil || self.bundleId == bundleId) && (self.token == nil || self.token == token)
    }

    /// Whether a refused-handshake window is open at `now`.
    func refusesHandshakes(at now: Double) -> Bool {
        guard case .refuseHandshakes(let seconds) = action else { return false }
        return now >= createdAt && now < createdAt + seconds && remaining != 0
    }

    /// Counts a matching push and decides, with the rule's generator, whether the rule hits it.
    mutating func fire() -> Bool {
        matched += 1
        guard remaining != 0 else { return false }
        if share < 1, generator.unit() >= share { return false }
        if let left = remaining { remaining = left - 1 }
        injected += 1
        return true
    }

    /// The delay of a latency rule that fired, drawn from its range.
    mutating func drawLatency() -> Double {
        guard case .latency(let low, let high) = action else { return 0 }
        return high > low ? low + (high - low) * generator.unit() : low
    }
}
