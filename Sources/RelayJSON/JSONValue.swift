/// A JSON document as a value.
///
/// The relay parses and writes JSON itself (see `JSONValue+Parsing.swift` and
/// `JSONValue+Serialization.swift`) because it sits on the push hot path. Integers are kept
/// apart from other numbers so that timestamps and counters round-trip exactly. Objects are
/// `JSONObject`s, members sorted by key, so output is deterministic.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

// MARK: - Accessors

extension JSONValue {
    /// The member `key` of an object, or nil for a missing key or a value that is not an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The object's members, or nil when this is not an object.
    package var objectValue: JSONObject? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The array's elements, or nil when this is not an array.
    package var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The string, or nil when this is not a string.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The boolean, or nil when this is not a boolean.
    package var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    /// Any number as a Double, or nil when this is not a number.
    package var doubleValue: Double? {
        switch self {
        case .int(let number): return Double(number)
        case .double(let number): return number
        default: return nil
        }
    }

    /// A number that is a whole value (`3` or `3.0`) as an Int64, or nil otherwise.
    package var int64Value: Int64? {
        switch self {
        case .int(let number): return number
        case .double(let number):
            guard number.isFinite, number.rounded() == number, abs(number) < 9.0e18 else { return nil }
            return Int64(number)
        default: return nil
        }
    }

    /// True for `null`.
    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The JSON type name (`object`, `array`, `string`, `number`, `boolean`, `null`), for error messages.
    package var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .int, .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

// MARK: - Literals

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(members: elements.map { (key: $0.0, value: $0.1) }))
    }
}

extension JSONValue {
    /// A number from a Double, kept as an integer when it is a whole value in range.
    public static func number(_ value: Double) -> JSONValue {
        if value.isFinite, value.rounded() == value, abs(value) < 9.0e15 { return .int(Int64(value)) }
        return .double(value)
    }

    /// `.null` for nil, else the wrapped value.
    package static func optional(_ value: JSONValue?) -> JSONValue { value ?? .null }
}
