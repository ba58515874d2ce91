package import RelayCore
package import RelayJSON
import Synchronization

/// The fault rules shared by the provider API, the `/v1/faults` routes and the TLS listener.
///
/// A push asks `decide` only when `appliesToPushes` (one relaxed atomic load) is true, and the
/// listener asks `refusesHandshake` only when `hasHandshakeRules` is: with no rules the hot
/// paths pay one check each. Rules live in memory: the API's rules last until the relay stops,
/// the config's are applied again at every start.
public final class FaultInjector: Sendable {
    private let plan: Mutex<FaultPlan>
    private let pushRules = Atomic<Bool>(false)
    private let handshakeRules = Atomic<Bool>(false)
    /// Real Unix seconds (the handshake windows and rule creation times follow the real clock).
    private let realNow: @Sendable () -> Double

    /// An injector with no rules whose rules without a seed use `seed`.
    public init(seed: UInt64 = 1, realNow: @escaping @Sendable () -> Double = { SystemClock().now() }) {
        plan = Mutex(FaultPlan(seed: seed))
        self.realNow = realNow
    }

    /// Whether any rule applies to pushes.
    package var appliesToPushes: Bool { pushRules.load(ordering: .relaxed) }
    /// Whether any rule refuses handshakes (its window may be over).
    package var hasHandshakeRules: Bool { handshakeRules.load(ordering: .relaxed) }

    /// Parses and adds a rule (see `FaultRule.parse`); nil when the plan is full.
    package func add(json: JSONValue, path: String = "") throws(JSONFieldError) -> FaultRule? {
        let (rule, ownSeed) = try FaultRule.parse(json, path: path, createdAt: realNow())
        return change { $0.add(rule, ownSeed: ownSeed) }
    }

    /// Removes rule `id`; false when there is none.
    package func remove(_ id: String) -> Bool { change { $0.remove(id) } }

    /// Removes every rule.
    package func removeAll() { change { $0.removeAll() } }

    /// The rules and the seed, as `GET /v1/faults` lists them.
    package var json: JSONValue {
        plan.withLock { plan in
            ["seed": .int(Int64(clamping: plan.seed)), "items": .array(plan.rules.map(\.json))]
        }
    }

    /// What the rules do to a push (see `FaultPlan.decide`).
    package func decide(bundleId: String, token: String, connectionPushes: Int) -> FaultPlan.Decision {
        plan.withLock { $0.decide(bundleId: bundleId, token: token, connectionPushes: connectionPushes) }
    }

    /// The rule refusing TLS handshakes now, if any.
    package func refusesHandshake() -> FaultRule? {
        let now = realNow()
        return plan.withLock { $0.refuseHandshake(at: now) }
    }

    private func change<T>(_ body: (inout FaultPlan) -> T) -> T {
        plan.withLock { plan in
            let result = body(&plan)
            pushRules.store(plan.appliesToPushes, ordering: .relaxed)
            handshakeRules.store(plan.refusesHandshakes, ordering: .relaxed)
            return result
        }
    }
}
