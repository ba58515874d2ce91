import RelayJSON

/// Typed reads from request and stored JSON, with errors that name the JSON path.
///
/// Shared by the alarm types' `init(json:path:)` and by `Alarm.fromRequest` / `Alarm.fromJSON`.
enum AlarmJSON {
    /// `parent.key`, or `key` at the top level.
    static func path(_ parent: String, _ key: String) -> String {
        parent.isEmpty ? key : parent + "." + key
    }

    /// The object's members, or an error naming `path`.
    static func object(_ value: JSONValue, at path: String) throws(AlarmError) -> JSONObject {
        guard let members = value.objectValue else {
            throw AlarmError.invalidField(path: path, message: "must be an object (got \(describe(value)))")
        }
        return members
    }

    /// The member `key`, treating `null` as absent.
    static func member(_ members: JSONObject, _ key: String) -> JSONValue? {
        guard let value = members[key], !value.isNull else { return nil }
        return value
    }

    /// The member `key`, which must be present and not `null`.
    static func required(_ members: JSONObject, _ key: String, in parent: String) throws(AlarmError)
        -> JSONValue
    {
        guard let value = member(members, key) else {
            throw AlarmError.invalidField(path: path(parent, key), message: "is required")
        }
        return value
    }

    /// A string of 1...`maxBytes` UTF-8 bytes.
    static func string(_ value: JSONValue, at path: String, maxBytes: Int) throws(AlarmError) -> String {
        guard let text = value.stringValue else {
            throw AlarmError.invalidField(path: path, message: "must be a string (got \(describe(value)))")
        }
        try checkLength(text, at: path, maxBytes: maxBytes)
        return text
    }

    /// Fails unless `text` has 1...`maxBytes` UTF-8 bytes.
    static func checkLength(_ text: String, at path: String, maxBytes: Int) throws(AlarmError) {
        let count = text.utf8.count
        guard count > 0, count <= maxBytes else {
            throw AlarmError.invalidField(
                path: path, message: "must be a non-empty string of at most \(maxBytes) bytes (got \(count) bytes)")
        }
    }

    /// A finite number.
    static func number(_ value: JSONValue, at path: String) throws(AlarmError) -> Double {
        guard let number = value.doubleValue, number.isFinite else {
            throw AlarmError.invalidField(path: path, message: "must be a number (got \(describe(value)))")
        }
        return number
    }

    /// A boolean.
    static func bool(_ value: JSONValue, at path: String) throws(AlarmError) -> Bool {
        guard let flag = value.boolValue else {
            throw AlarmError.invalidField(path: path, message: "must be a boolean (got \(describe(value)))")
        }
        return flag
    }

    /// A short rendering of an offending value for error messages: numbers and short strings as
    /// written, anything else by its JSON type.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .int(let number): return String(number)
        case .double(let number): return String(number)
        case .bool(let flag): return String(flag)
        case .string(let text):
            let shown = text.utf8.count <= 40 ? text : String(text.prefix(37)) + "..."
            return "\"" + shown + "\""
        default: return value.typeName
        }
    }

    /// Fails when `value` is nested deeper than the limit or its compact encoding would exceed
    /// `AlarmLimits.maximumPayloadBytes`. Stops walking as soon as either bound is crossed.
    static func checkPayload(_ value: JSONValue, at path: String) throws(AlarmError) {
        var budget = AlarmLimits.maximumPayloadBytes
        guard consume(value, depth: 0, budget: &budget) else {
            throw AlarmError.invalidField(
                path: path,
                message: "must encode to at most \(AlarmLimits.maximumPayloadBytes) bytes "
                    + "nested at most \(AlarmLimits.maximumPayloadDepth) deep")
        }
    }

    /// Subtracts the encoded size of `value` from `budget`; false once the budget or depth runs out.
    private static func consume(_ value: JSONValue, depth: Int, budget: inout Int) -> Bool {
        guard depth <= AlarmLimits.maximumPayloadDepth else { return false }
        switch value {
        case .null, .bool: budget -= 5
        case .int: budget -= 20
        case .double: budget -= 24
        case .string(let text): budget -= encodedSize(of: text)
        case .array(let elements):
            budget -= 2 + elements.count
            for element in elements where budget >= 0 {
                guard consume(element, depth: depth + 1, budget: &budget) else { return false }
            }
        case .object(let members):
            budget -= 2 + members.count * 2
            for (key, member) in members where budget >= 0 {
                budget -= encodedSize(of: key)
                guard consume(member, depth: depth + 1, budget: &budget) else { return false }
            }
        }
        return budget >= 0
    }

    /// Bytes of `text` as a JSON string literal: quotes, escapes (`\"`, `\\`, `\u00XX`) included.
    private static func encodedSize(of text: String) -> Int {
        var size = 2
        for byte in text.utf8 {
            if byte == 0x22 || byte == 0x5C {
                size += 2
            } else if byte < 0x20 {
                size += 6
            } else {
                size += 1
            }
        }
        return size
    }
}
