import RelayCore
import RelayJSON

/// Reads the members of one object in the config file, with `JSONFieldError`s that name the
/// member's key path (`http.maxConnections`, `providerKeys[1].bundleIds`), the same style as
/// `RelayRules(json:path:)` uses for the `rules` object.
///
/// "Absent" means missing or `null`; readers return nil for it and the caller keeps its default.
typealias ConfigFields = JSONFields

extension JSONFields {
    /// A non-empty string that must be present.
    func requireString(_ key: String, _ expectation: String) throws(JSONFieldError) -> String {
        guard let text = try string(key), !text.isEmpty else { throw error(key, "is required (\(expectation))") }
        return text
    }

    /// A string turned into a value by `parse`, or nil when absent; `expectation` says what
    /// `parse` accepts (`"system or virtual"`).
    func parsed<T>(_ key: String, _ expectation: String, _ parse: (String) -> T?) throws(JSONFieldError) -> T? {
        guard let value = value(key) else { return nil }
        guard let text = value.stringValue, let parsed = parse(text) else {
            throw error(key, "must be \(expectation)")
        }
        return parsed
    }

    /// A whole number in `range`, or nil when absent.
    func integer(_ key: String, in range: ClosedRange<Int>) throws(JSONFieldError) -> Int? {
        guard let value = value(key) else { return nil }
        guard let whole = value.int64Value, let number = Int(exactly: whole), range.contains(number) else {
            throw error(key, "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// A duration in seconds above 0 and at most `maximum`, or nil when absent.
    func seconds(_ key: String, atMost maximum: Double) throws(JSONFieldError) -> Double? {
        guard let value = value(key) else { return nil }
        guard let seconds = value.doubleValue, seconds.isFinite, seconds > 0, seconds <= maximum else {
            throw error(key, "must be seconds above 0 and at most \(maximum.plainText)")
        }
        return seconds
    }

    /// An array of at most `limit` elements, or nil when absent.
    func array(_ key: String, limit: Int) throws(JSONFieldError) -> [JSONValue]? {
        guard let value = value(key) else { return nil }
        guard let elements = value.arrayValue else { throw error(key, "must be an array") }
        guard elements.count <= limit else { throw error(key, "must have at most \(limit) elements") }
        return elements
    }
}
