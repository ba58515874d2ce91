/// The regular header fields of a provider API request, as name/value pairs in arrival order.
///
/// RelayCore does not depend on RelayHTTP, so the server hands its `HTTPHeaders` over as pairs.
/// Names are compared in lowercase (HTTP/2 sends them lowercase; HTTP/1.1 is case-insensitive).
/// Pseudo-headers (`:method`, `:path`) are not part of this list.
public struct APNsHeaderFields: Sendable {
    /// The fields, names lowercased.
    public let fields: [(name: String, value: String)]

    /// Wraps pairs; names are lowercased.
    public init(_ fields: [(name: String, value: String)]) {
        // HTTP/2 names arrive lowercase: keep the array as it is rather than copy it.
        if fields.allSatisfy({ !APNsASCII.hasUppercase($0.name) }) {
            self.fields = fields
        } else {
            self.fields = fields.map { (APNsASCII.lowercased($0.name), $0.value) }
        }
    }

    /// The first value of `name` (lowercase), or nil.
    public subscript(name: String) -> String? {
        for field in fields where field.name == name { return field.value }
        return nil
    }

    /// The first header name that appears more than once, or nil. APNs answers such a request
    /// with `DuplicateHeaders`.
    public func firstDuplicateName() -> String? {
        if fields.count < 2 { return nil }
        // A push carries a handful of headers: comparing pairs beats hashing every name into a set.
        if fields.count <= 16 {
            for later in 1..<fields.count {
                for earlier in 0..<later where fields[earlier].name == fields[later].name { return fields[later].name }
            }
            return nil
        }
        var seen = Set<String>(minimumCapacity: fields.count)
        for field in fields where !seen.insert(field.name).inserted { return field.name }
        return nil
    }

    /// `DuplicateHeaders` for the first repeated name, or nil.
    func checkDuplicates() -> APNsError? {
        guard let name = firstDuplicateName() else { return nil }
        return APNsError(.duplicateHeaders, "header '\(name)' appears more than once")
    }
}
