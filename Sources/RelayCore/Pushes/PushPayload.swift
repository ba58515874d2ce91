public import RelayJSON

/// A push's payload as the push log keeps it: a JSON value, or the body's own bytes once the
/// rules have read them as one valid JSON document.
///
/// Keeping the bytes spares every accepted push a second JSON tree (the rules read the body
/// member by member and build only the values they use); the log writes them as they came,
/// without insignificant whitespace, so members keep the sender's order.
public enum PushPayload: Sendable, Hashable {
    /// A value: the payload parsed, a string for a body that was not JSON, or null for none.
    case value(JSONValue)
    /// Body bytes known to be one valid JSON document.
    case json([UInt8])

    /// The payload as a JSON value (bytes are parsed on each read).
    package var value: JSONValue {
        switch self {
        case .value(let value): return value
        case .json(let bytes):
            return (try? JSONValue(parsing: bytes)) ?? .string(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// Payloads are equal when their JSON values are, however they are kept.
    public static func == (lhs: PushPayload, rhs: PushPayload) -> Bool {
        if case .json(let left) = lhs, case .json(let right) = rhs, left == right { return true }
        return lhs.value == rhs.value
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(value) }

    /// Writes the payload as compact JSON.
    func write(to out: inout JSONOutput) {
        switch self {
        case .value(let value): value.write(to: &out)
        case .json(let bytes): bytes.withUnsafeBufferPointer { out.appendCompacting(json: $0) }
        }
    }
}
