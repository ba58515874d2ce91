/// The regular header fields of a provider API request, as name/value pairs in arrival order.
///
/// RelayCore does not depend on RelayHTTP, so the server hands its `HTTPHeaders` over as pairs.
/// Names are compared in lowercase (HTTP/2 sends them lowercase; HTTP/1.1 is case-insensitive).
/// Pseudo-headers (`:method`, `:path`) are not part of this list.
///
/// The headers the APNs rules read (`APNsHeaderName`) are indexed once, when the fields are
/// wrapped.
public struct APNsHeaderFields: Sendable {
    /// The fields, names lowercased.
    public let fields: [(name: String, value: String)]
    /// The offset of the first field of each header the APNs rules read.
    private let firstOffset: [APNsHeaderName: Int]

    /// Wraps pairs; names are lowercased.
    public init(_ fields: [(name: String, value: String)]) {
        let lowercased = fields.map { (name: APNsASCII.lowercased($0.name), value: $0.value) }
        var firstOffset: [APNsHeaderName: Int] = [:]
        for (offset, field) in lowercased.enumerated() {
            guard let name = APNsHeaderName(rawValue: field.name), firstOffset[name] == nil else { continue }
            firstOffset[name] = offset
        }
        self.fields = lowercased
        self.firstOffset = firstOffset
    }

    /// The first value of `name` (lowercase), or nil.
    public subscript(name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// The first value of a header the APNs rules read, or nil.
    subscript(name: APNsHeaderName) -> String? {
        firstOffset[name].map { fields[$0].value }
    }

    /// The first header name that appears more than once, or nil. APNs answers such a request
    /// with `DuplicateHeaders`.
    public func firstDuplicateName() -> String? {
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
