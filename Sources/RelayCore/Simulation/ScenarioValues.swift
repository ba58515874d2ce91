import RelayJSON

/// Expressions inside scenario values, so that payloads can name times and tokens that only
/// exist when the scenario runs. A string starting with `$` is an expression:
///
/// - `$now`, `$now+10m`, `$now-90s`: the step's time in Unix seconds (a number);
/// - `$nowMs`: the step's time in milliseconds (to show what a millisecond timestamp does);
/// - `$start+8h`: an offset from the scenario's start;
/// - `$name.field`: a member of a named object (`$order.pushToken`, `$pts.token`, `$order.id`).
///
/// `$$` at the start stands for a literal `$`.
struct ScenarioValues {
    var start: UnixSeconds
    var now: UnixSeconds
    var named: JSONObject

    /// `value` with every expression replaced.
    func resolve(_ value: JSONValue, path: String) throws(ScenarioError) -> JSONValue {
        switch value {
        case .string(let text) where text.hasPrefix("$$"):
            return .string(String(text.dropFirst()))
        case .string(let text) where text.hasPrefix("$"):
            return try expression(Substring(text.dropFirst()), path: path)
        case .array(let elements):
            var out: [JSONValue] = []
            out.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                out.append(try resolve(element, path: "\(path)[\(index)]"))
            }
            return .array(out)
        case .object(let members):
            var out: JSONObject = [:]
            for (key, member) in members { out[key] = try resolve(member, path: path.isEmpty ? key : "\(path).\(key)") }
            return .object(out)
        default:
            return value
        }
    }

    private func expression(_ text: Substring, path: String) throws(ScenarioError) -> JSONValue {
        if text == "nowMs" { return .number((now * 1000).rounded()) }
        for (prefix, base) in [("now", now), ("start", start)] where text.hasPrefix(prefix) {
            let rest = text.dropFirst(prefix.count)
            if rest.isEmpty { return .number(base) }
            guard let sign = rest.first, sign == "+" || sign == "-",
                let seconds = DurationText.seconds(rest.dropFirst())
            else {
                throw ScenarioError(
                    path: path, message: "'$\(text)' is not $\(prefix), $\(prefix)+DURATION or $\(prefix)-DURATION")
            }
            return .number(sign == "+" ? base + seconds : base - seconds)
        }
        let parts = text.split(separator: ".", maxSplits: 1)
        guard let name = parts.first, let object = named[String(name)] else {
            throw ScenarioError(path: path, message: "'$\(text)' names nothing defined before this step")
        }
        guard parts.count == 2 else { return object }
        guard let member = object[String(parts[1])], !member.isNull else {
            throw ScenarioError(path: path, message: "'$\(text)': \(name) has no \(parts[1])")
        }
        return member
    }
}
