public import RelayJSON

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
    /// A request's own header fields in arrival order, each name once and lowercase, with the
    /// value of `authorization` logged as the one given here. The log shares the request's array
    /// instead of copying every field into a new one just to change one value.
    case redacting([(name: String, value: String)], authorization: String)

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(members: elements.map { (key: $0.0, value: $0.1) }))
    }

    /// The headers as a JSON object.
    package var object: JSONObject {
        switch self {
        case .object(let object): return object
        case .fields(let fields): return JSONObject(members: fields.map { (key: $0.name, value: .string($0.value)) })
        case .redacting(let fields, let authorization):
            return JSONObject(
                members: fields.map { field in
                    (key: field.name, value: .string(Self.isAuthorization(field.name) ? authorization : field.value))
                })
        }
    }

    /// Whether a lowercase header name is `authorization`.
    private static func isAuthorization(_ name: String) -> Bool {
        name.utf8.count == 13 && name == "authorization"
    }

    /// Headers are equal when their objects are, however they are kept.
    public static func == (lhs: LoggedHeaders, rhs: LoggedHeaders) -> Bool { lhs.object == rhs.object }

    public func hash(into hasher: inout Hasher) { hasher.combine(object) }

    /// Writes the headers as a JSON object.
    func write(to out: inout JSONOutput) {
        switch self {
        case .object(let object): JSONValue.object(object).write(to: &out)
        case .fields(let fields):
            Self.write(fields, authorization: nil, to: &out)
        case .redacting(let fields, let authorization):
            Self.write(fields, authorization: authorization, to: &out)
        }
    }

    /// Writes `fields` as an object, with `authorization` (when given) as that header's value.
    private static func write(
        _ fields: [(name: String, value: String)], authorization: String?, to out: inout JSONOutput
    ) {
        out.append(UInt8(ascii: "{"))
        for offset in fields.indices {
            if offset > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(fields[offset].name, to: &out)
            out.append(UInt8(ascii: ":"))
            if let authorization, isAuthorization(fields[offset].name) {
                JSONWriter.writeString(authorization, to: &out)
            } else {
                JSONWriter.writeString(fields[offset].value, to: &out)
            }
        }
        out.append(UInt8(ascii: "}"))
    }
}
