import RelayCore
package import RelayJSON

/// Fault rules to inject from the start (config object `faults`: `{"seed", "rules": [rule]}`,
/// each rule in the shape of `POST /v1/faults`). Checked when the config loads.
package struct FaultSettings: Sendable, Hashable {
    /// The seed of rules that name none. Default 1.
    package var seed: UInt64 = 1
    /// The rules as written, already checked.
    package var rules: [JSONValue] = []

    /// No rules.
    package init() {}

    static let keys: Set<String> = ["seed", "rules"]

    /// Reads the `faults` object; every rule is parsed now, so a bad one fails the start.
    init(fields: ConfigFields) throws(JSONFieldError) {
        try fields.rejectUnknown(Self.keys)
        self.init()
        seed = UInt64(try fields.integer("seed", in: 0...Int(Int32.max)) ?? 1)
        let elements = try fields.array("rules", limit: FaultPlan.maxRules) ?? []
        for (index, element) in elements.enumerated() {
            _ = try FaultRule.parse(element, path: fields.keyPath("rules[\(index)]"), createdAt: 0)
        }
        rules = elements
    }

    /// An injector holding these rules; handshake windows start now.
    package func injector() -> FaultInjector {
        let injector = FaultInjector(seed: seed)
        for (index, rule) in rules.enumerated() {
            // Parsed once already when the config loaded: this cannot throw.
            _ = try? injector.add(json: rule, path: "faults.rules[\(index)]")
        }
        return injector
    }
}
