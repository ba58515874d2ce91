package import RelayJSON

/// Reads the members of one JSON object with typed errors that name the member's key path.
///
/// Used by every `init(json:)` in Rules, Budgets and Activities. "Absent" means missing or `null`;
/// the optional readers return nil for it, the `require` readers throw. Numbers must be finite.
package struct JSONFields {
    /// The object's members.
    package let members: JSONObject
    /// The key path of the object itself (`""` at the top), used as the prefix of member paths.
    package let path: String

    /// Wraps `value`, which must be an object.
    package init(_ value: JSONValue, path: String = "") throws(JSONFieldError) {
        guard case .object(let members) = value else {
            throw JSONFieldError(key: path, found: value, message: "must be an object")
        }
        self.members = members
        self.path = path
    }

    /// The key path of member `key`.
    package func keyPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// An error about member `key`.
    package func error(_ key: String, _ message: String) -> JSONFieldError {
        JSONFieldError(key: keyPath(key), found: members[key], message: message)
    }

    /// Throws for the first member whose key is not in `allowed` (in sorted order, so errors are stable).
    package func rejectUnknown(_ allowed: Set<String>) throws(JSONFieldError) {
        for key in members.keys.sorted() where !allowed.contains(key) {
            throw error(key, "is not a known key (known: \(allowed.sorted().joined(separator: ", ")))")
        }
    }

    /// The member, or nil when it is missing or null.
    package func value(_ key: String) -> JSONValue? {
        guard let value = members[key], !value.isNull else { return nil }
        return value
    }

    /// The member, which must be present (it may be null).
    package func require(_ key: String) throws(JSONFieldError) -> JSONValue {
        guard let value = members[key] else { throw error(key, "is required") }
        return value
    }

    /// A finite number, or nil when absent.
    package func number(_ key: String) throws(JSONFieldError) -> Double? {
        guard let value = value(key) else { return nil }
        guard let number = value.doubleValue, number.isFinite else { throw error(key, "must be a finite number") }
        return number
    }

    /// A finite number that must be present.
    package func requireNumber(_ key: String) throws(JSONFieldError) -> Double {
        guard let number = try number(key) else { throw error(key, "is required (a number)") }
        return number
    }

    /// A whole number that fits an Int, or nil when absent.
    package func integer(_ key: String) throws(JSONFieldError) -> Int? {
        guard let value = value(key) else { return nil }
        guard let whole = value.int64Value, let number = Int(exactly: whole) else {
            throw error(key, "must be a whole number")
        }
        return number
    }

    /// A whole number that must be present.
    package func requireInteger(_ key: String) throws(JSONFieldError) -> Int {
        guard let number = try integer(key) else { throw error(key, "is required (a whole number)") }
        return number
    }

    /// A string, or nil when absent.
    package func string(_ key: String) throws(JSONFieldError) -> String? {
        guard let value = value(key) else { return nil }
        guard let text = value.stringValue else { throw error(key, "must be a string") }
        return text
    }

    /// A string that must be present.
    package func requireString(_ key: String) throws(JSONFieldError) -> String {
        guard let text = try string(key) else { throw error(key, "is required (a string)") }
        return text
    }

    /// A boolean, or nil when absent.
    package func bool(_ key: String) throws(JSONFieldError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard let flag = value.boolValue else { throw error(key, "must be true or false") }
        return flag
    }

    /// A boolean that must be present.
    package func requireBool(_ key: String) throws(JSONFieldError) -> Bool {
        guard let flag = try bool(key) else { throw error(key, "is required (true or false)") }
        return flag
    }

    /// A nested object's reader, or nil when absent.
    package func object(_ key: String) throws(JSONFieldError) -> JSONFields? {
        guard let value = value(key) else { return nil }
        return try JSONFields(value, path: keyPath(key))
    }

    /// A nested object's reader; the member must be present.
    package func requireObject(_ key: String) throws(JSONFieldError) -> JSONFields {
        guard let fields = try object(key) else { throw error(key, "is required (an object)") }
        return fields
    }
}
