/// Why an activity could not be started.
package enum ActivityError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Attributes + content state are `bytes` long as compact JSON, over `limit`.
    case tooLarge(bytes: Int, limit: Int)
    /// `field` holds `value`, which is not allowed; `message` says why.
    case invalidValue(field: String, value: String, message: String)

    /// One line for the app API's `message`.
    package var description: String {
        switch self {
        case .tooLarge(let bytes, let limit):
            return "attributes and content state are \(bytes) bytes, over the \(limit)-byte limit"
        case .invalidValue(let field, let value, let message):
            return "\(field) \(message) (found \(value))"
        }
    }

    /// The app API error code: `tooLarge` (413) or `invalidValue` (400).
    package var code: String {
        switch self {
        case .tooLarge: return "tooLarge"
        case .invalidValue: return "invalidValue"
        }
    }
}
