package import RelayJSON

/// A JSON member that is missing, of the wrong type or out of range, named by its key path.
///
/// Config files and stored records are decoded member by member; the first bad member stops the
/// decoding and is reported here so that the operator can fix it from one line
/// (`tokenBurst.capacity: must be a whole number from 1 to 1000000 (found number -3)`).
package struct JSONFieldError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The dotted path of the member, such as `pushToStartBudget.capacity`, or `""` for the whole value.
    package let key: String
    /// The offending value, or nil when the member is missing.
    package let found: JSONValue?
    /// What was expected, in words.
    package let message: String

    /// An error for the member at `key`.
    package init(key: String, found: JSONValue?, message: String) {
        self.key = key
        self.found = found
        self.message = message
    }

    /// `key: message (found ...)`, one line.
    package var description: String {
        let subject = key.isEmpty ? "value" : key
        guard let found else { return "\(subject): \(message) (missing)" }
        return "\(subject): \(message) (found \(Self.brief(found)))"
    }

    /// A short, bounded rendering of a value for error messages: scalars in full (long strings cut), containers by type.
    static func brief(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return "boolean \(flag)"
        case .int(let number): return "number \(number)"
        case .double(let number): return "number \(number)"
        case .string(let text):
            let cut = text.count > 40 ? String(text.prefix(40)) + "..." : text
            return "string \"\(cut)\""
        case .array(let elements): return "array of \(elements.count)"
        case .object(let members): return "object of \(members.count) keys"
        }
    }
}
