package import RelayJSON

/// The fault rules in force, in the order they were added, and what they do to each push.
///
/// For every push that passed the provider API's checks the rules are tried in order:
/// 1. a rule whose scope (bundle ID, token) does not cover the push is skipped;
/// 2. a `goaway` rule is skipped until the connection has carried `afterStreams` pushes;
/// 3. a `refuseHandshakes` rule never applies to pushes;
/// 4. the rule counts the push and fires with its share (its own seeded generator) while its
///    count lasts;
/// 5. every latency rule that fires adds its delay; the first error, goaway or reset rule that
///    fires decides the answer and later ones are not tried.
package struct FaultPlan: Sendable {
    /// The rules, oldest first.
    package private(set) var rules: [FaultRule] = []
    /// The seed of rules that do not name their own.
    package var seed: UInt64
    private var nextNumber = 1

    /// The most rules at once.
    package static let maxRules = 1000

    package init(seed: UInt64 = 1) { self.seed = seed }

    /// What the rules do to one push.
    package struct Decision: Sendable, Hashable {
        /// The rule that shapes the answer (`error`, `goaway` or `reset`), if any fired.
        package var rule: FaultRule?
        /// Milliseconds to hold the answer back, summed over the latency rules that fired.
        package var latencyMs: Double = 0
        /// The latency rules that fired.
        package var latencyRules: [String] = []

        /// Whether no rule fired.
        package var isEmpty: Bool { rule == nil && latencyRules.isEmpty }

        /// `{"kind", "rule", "latencyMs"?}` for the push log: the answering rule, else the first latency rule.
        package var json: JSONValue {
            var members: JSONObject = [:]
            if let rule {
                members["kind"] = .string(rule.action.kind)
                members["rule"] = .string(rule.id)
            } else if let first = latencyRules.first {
                members["kind"] = "latency"
                members["rule"] = .string(first)
            }
            if !latencyRules.isEmpty {
                members["latencyMs"] = .number((latencyMs * 1000).rounded() / 1000)
                members["latencyRules"] = .array(latencyRules.map(JSONValue.string))
            }
            return .object(members)
        }
    }

    /// Adds `rule` with the next id (and the plan's seed unless `ownSeed`); returns the stored
    /// rule, or nil when `maxRules` are in force.
    package mutating func add(_ rule: FaultRule, ownSeed: Bool) -> FaultRule? {
        guard rules.count < Self.maxRules else { return nil }
        var rule = rule
        rule.id = "f\(nextNumber)"
        nextNumber += 1
        if !ownSeed {
            rule.seed = seed
            rule.generator = SeededGenerator(seed: seed)
        }
        rules.append(rule)
        return rule
    }

    /// Removes the rule `id`; false when there is none.
    package mutating func remove(_ id: String) -> Bool {
        guard let index = rules.firstIndex(where: { $0.id == id }) else { return false }
        rules.remove(at: index)
        return true
    }

    /// Removes every rule (ids keep counting up).
    package mutating func removeAll() { rules.removeAll() }

    /// The rules' answer to a push for `bundleId` to `token` arriving as push number
    /// `connectionPushes` (1 for the first) of its connection.
    package mutating func decide(bundleId: String, token: String, connectionPushes: Int) -> Decision {
        var decision = Decision()
        for index in rules.indices {
            guard rules[index].covers(bundleId: bundleId, token: token) else { continue }
            switch rules[index].action {
            case .refuseHandshakes:
                continue
            case .goaway(let afterStreams, _):
                guard connectionPushes > afterStreams else { continue }
            case .error, .reset, .latency:
                break
            }
            guard rules[index].fire() else { continue }
            if case .latency = rules[index].action {
                decision.latencyMs += rules[index].drawLatency()
                decision.latencyRules.append(rules[index].id)
                continue
            }
            decision.rule = rules[index]
            break
        }
        return decision
    }

    /// The rule refusing TLS handshakes at real time `now`, if any; counts the refusal.
    package mutating func refuseHandshake(at now: Double) -> FaultRule? {
        guard let index = rules.firstIndex(where: { $0.refusesHandshakes(at: now) }) else { return nil }
        rules[index].matched += 1
        rules[index].injected += 1
        return rules[index]
    }

    /// Whether any rule applies to pushes, and whether any refuses handshakes (now or later).
    package var appliesToPushes: Bool {
        rules.contains { if case .refuseHandshakes = $0.action { false } else { true } }
    }
    package var refusesHandshakes: Bool {
        rules.contains { if case .refuseHandshakes = $0.action { true } else { false } }
    }
}
