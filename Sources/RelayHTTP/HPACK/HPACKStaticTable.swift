/// The HPACK static table (RFC 7541 Appendix A): 61 entries, indices 1...61, shared by every connection.
package enum HPACKStaticTable {
    /// Number of entries; dynamic table indices start after it.
    package static let count = 61

    /// The entries in index order (`entries[0]` is index 1).
    package static let entries: [(name: String, value: String)] = [
        (":authority", ""),
        (":method", "GET"),
        (":method", "POST"),
        (":path", "/"),
        (":path", "/index.html"),
        (":scheme", "http"),
        (":scheme", "https"),
        (":status", "200"),
        (":status", "204"),
        (":status", "206"),
        (":status", "304"),
        (":status", "400"),
        (":status", "404"),
        (":status", "500"),
        ("accept-charset", ""),
        ("accept-encoding", "gzip, deflate"),
        ("accept-language", ""),
        ("accept-ranges", ""),
        ("accept", ""),
        ("access-control-allow-origin", ""),
        ("age", ""),
        ("allow", ""),
        ("authorization", ""),
        ("cache-control", ""),
        ("content-disposition", ""),
        ("content-encoding", ""),
        ("content-language", ""),
        ("content-length", ""),
        ("content-location", ""),
        ("content-range", ""),
        ("content-type", ""),
        ("cookie", ""),
        ("date", ""),
        ("etag", ""),
        ("expect", ""),
        ("expires", ""),
        ("from", ""),
        ("host", ""),
        ("if-match", ""),
        ("if-modified-since", ""),
        ("if-none-match", ""),
        ("if-range", ""),
        ("if-unmodified-since", ""),
        ("last-modified", ""),
        ("link", ""),
        ("location", ""),
        ("max-forwards", ""),
        ("proxy-authenticate", ""),
        ("proxy-authorization", ""),
        ("range", ""),
        ("referer", ""),
        ("refresh", ""),
        ("retry-after", ""),
        ("server", ""),
        ("set-cookie", ""),
        ("strict-transport-security", ""),
        ("transfer-encoding", ""),
        ("user-agent", ""),
        ("vary", ""),
        ("via", ""),
        ("www-authenticate", ""),
    ]

    /// The lowest index of each name.
    private static let nameIndices: [String: Int] = {
        var indices: [String: Int] = [:]
        for (offset, entry) in entries.enumerated() where indices[entry.name] == nil {
            indices[entry.name] = offset + 1
        }
        return indices
    }()

    /// The index of each entry whose value is not empty (entries with an empty value are found by name).
    private static let fieldIndices: [HPACKField: Int] = {
        var indices: [HPACKField: Int] = [:]
        for (offset, entry) in entries.enumerated() where !entry.value.isEmpty {
            indices[HPACKField(name: entry.name, value: entry.value)] = offset + 1
        }
        return indices
    }()

    /// The index of an entry holding exactly `name` and `value`. A `:status` (one in every
    /// response) is found among entries 8 to 14 without hashing the field.
    package static func index(of field: HPACKField) -> Int? {
        if field.name == ":status" {
            switch field.value {
            case "200": return 8
            case "204": return 9
            case "206": return 10
            case "304": return 11
            case "400": return 12
            case "404": return 13
            case "500": return 14
            default: return nil
            }
        }
        if field.value.isEmpty {
            guard let index = nameIndices[field.name], entries[index - 1].value.isEmpty else { return nil }
            return index
        }
        return fieldIndices[field]
    }

    /// The lowest index of an entry named `name`.
    package static func index(ofName name: String) -> Int? { nameIndices[name] }
}
