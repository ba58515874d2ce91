/// A push's request headers as the push log keeps them: a JSON object of strings, or the header
/// fields themselves, written as that object only when the record is serialized.
///
/// Building a sorted object for every push cost more than the header checks; the fields are
/// already at hand, and written in arrival order they make the same object.
public enum LoggedHeaders: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// Headers as an object.
    case object(JSONObject)
    /// Header fields in arrival order, each name once (the caller joins repeated values).
    case fields([(name: String, value: String)])

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(members: elements.map { (key: $0.0, value: $0.1) }))
    }

    /// The headers as a JSON object.
    public var object: JSONObject {
        switch self {
        case .object(let object): return object
        case .fields(let fields): return JSONObject(members: fields.map { (key: $0.name, value: .string($0.value)) })
        }
    }

    /// Headers are equal when their objects are, however they are kept.
    public static func == (lhs: LoggedHeaders, rhs: LoggedHeaders) -> Bool { lhs.object == rhs.object }

    public func hash(into hasher: inout Hasher) { hasher.combine(object) }

    /// Writes the headers as a JSON object.
    func write(to out: inout JSONOutput) {
        switch self {
        case .object(let object): JSONValue.object(object).write(to: &out)
        case .fields(let fields):
            out.append(UInt8(ascii: "{"))
            for (offset, field) in fields.enumerated() {
                if offset > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.writeString(field.name, to: &out)
                out.append(UInt8(ascii: ":"))
                JSONWriter.writeString(field.value, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}
