/// Builds a page in the Prometheus text exposition format (version 0.0.4): `# HELP` and
/// `# TYPE` once per family, then one `name{label="value"} number` line per series.
struct MetricsText {
    private(set) var text = ""

    /// Starts the family `name` of `type` (`counter`, `gauge`, `histogram`).
    mutating func family(_ name: String, _ type: String, _ help: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    /// One sample of `name` with `labels` (in order).
    mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{"
            text += labels.map { "\($0.0)=\"\(Self.escape($0.1))\"" }.joined(separator: ",")
            text += "}"
        }
        text += " " + Self.format(value) + "\n"
    }

    /// One sample with a whole-number value.
    mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: UInt64) {
        sample(name, labels, Double(value))
    }

    /// The `_bucket`, `_sum` and `_count` samples of a histogram.
    mutating func histogram(_ name: String, _ histogram: MetricHistogram) {
        let (cumulative, sum) = histogram.snapshot()
        for (index, bound) in histogram.bounds.enumerated() {
            sample(name + "_bucket", [("le", Self.format(bound))], cumulative[index])
        }
        sample(name + "_bucket", [("le", "+Inf")], cumulative.last ?? 0)
        sample(name + "_sum", [], sum)
        sample(name + "_count", [], cumulative.last ?? 0)
    }

    /// A number as the format writes it: whole numbers without a fraction.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// A label value with `\`, `"` and line feeds escaped, as the format requires.
    static func escape(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}
