import RelayCore
import RelayJSON

/// The bundle IDs a provider key may push to: any (`["*"]` in the config file) or a fixed set.
/// A push to any other bundle ID is `400 TopicDisallowed`.
public enum AllowedBundleIDs: Sendable, Hashable {
    /// Every bundle ID, like the development key.
    case any
    /// Exactly these bundle IDs.
    case only(Set<String>)

    /// True when `bundleID` may be pushed to.
    package func allows(_ bundleID: String) -> Bool {
        switch self {
        case .any: true
        case .only(let set): set.contains(bundleID)
        }
    }

    /// Reads a `bundleIds` array: `["*"]`, or one or more bundle IDs (letters, digits, `-`, `.`).
    init(_ elements: [JSONValue], fields: ConfigFields, key: String) throws(JSONFieldError) {
        let expectation = "a non-empty list of bundle IDs, or [\"*\"] for any"
        guard !elements.isEmpty else { throw fields.error(key, "must be \(expectation)") }
        var set: Set<String> = []
        for (index, element) in elements.enumerated() {
            let path = "\(fields.keyPath(key))[\(index)]"
            guard let text = element.stringValue else {
                throw JSONFieldError(key: path, found: element, message: "must be a bundle ID string")
            }
            if text == "*" {
                guard elements.count == 1 else {
                    throw JSONFieldError(key: path, found: element, message: "\"*\" (any bundle ID) must stand alone")
                }
                self = .any
                return
            }
            guard APNsTopic.isValidBundleID(text) else {
                throw JSONFieldError(
                    key: path, found: element,
                    message: "must be a bundle ID (letters, digits, '-' and '.', no empty components)")
            }
            set.insert(text)
        }
        self = .only(set)
    }
}
