/// The regular header fields of a provider API request, as name/value pairs in arrival order.
///
/// RelayCore does not depend on RelayHTTP, so the server hands its `HTTPHeaders` over as pairs.
/// Names are compared in lowercase (HTTP/2 sends them lowercase; HTTP/1.1 is case-insensitive).
/// Pseudo-headers (`:method`, `:path`) are not part of this list.
public struct APNsHeaderFields: Sendable {
    /// The fields, names lowercased.
    public let fields: [(name: String, value: String)]

    /// Wraps pairs; names are lowercased (HTTP/2 sends them lowercase already, so most are kept).
    public init(_ fields: [(name: String, value: String)]) {
        let hasUppercase = fields.contains { APNsASCII.hasUppercase($0.name) }
        self.fields = hasUppercase ? fields.map { (APNsASCII.lowercased($0.name), $0.value) } : fields
    }

    /// The first value of `name` (lowercase), or nil.
    public subscript(name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// The first value of a header the APNs rules read, or nil.
    subscript(name: APNsHeaderName) -> String? { self[name.rawValue] }

    /// The first header name that appears more than once, or nil. APNs answers such a request
    /// with `DuplicateHeaders`.
    public func firstDuplicateName() -> String? {
        // A push has a handful of fields: comparing pairs is cheaper than hashing them into a set.
        if fields.count <= 16 {
            for later in fields.indices {
                for earlier in 0..<later where fields[earlier].name == fields[later].name { return fields[later].name }
            }
            return nil
        }
        var seen = Set<String>()
        for field in fields where !seen.insert(field.name).inserted { return field.name }
        return nil
    }

    /// `DuplicateHeaders` for the first repeated name, or nil.
    func checkDuplicates() -> APNsError? {
        guard let name = firstDuplicateName() else { return nil }
        return APNsError(.duplicateHeaders, "header '\(name)' appears more than once")
    }
}

/// The headers the APNs rules read, by their lowercase wire names.
enum APNsHeaderName: String, CaseIterable {
    case authorization
    case pushType = "apns-push-type"
    case topic = "apns-topic"
    case id = "apns-id"
    case priority = "apns-priority"
    case expiration = "apns-expiration"
    case collapseID = "apns-collapse-id"
    case channelID = "apns-channel-id"
    case requestID = "apns-request-id"
    case uniqueID = "apns-unique-id"
}
