import RelayCore
import RelayHTTP
import RelayJSON

/// What the push log keeps of a provider request besides its outcome: the headers, with the
/// provider token redacted, and the payload.
enum ProviderRequestRecord {
    /// Longest header value kept in the log; longer ones are cut (the request was bounded by
    /// the listener's header-list limit anyway).
    static let maxHeaderValueBytes = 1024
    /// Most body bytes kept when the body is not JSON.
    static let maxRawPayloadBytes = 5120

    /// The request headers as the push log shows them. `authorization` never appears in full:
    /// a verified token shows its key, team and `iat` (enough to debug churn and expiry), any
    /// other value only that it was there. A repeated header keeps its values joined by ", ".
    /// `redactedAuthorization`, when given, is `redacted(token)` already written (see
    /// `ConnectionContext.redactedAuthorization`).
    static func headers(_ headers: HTTPHeaders, token: ProviderToken?, redactedAuthorization: String? = nil)
        -> LoggedHeaders
    {
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(headers.count)
        var repeated = false
        for field in headers {
            var value = field.value
            if field.name == "authorization" {
                value = redactedAuthorization ?? redacted(token)
            } else if value.utf8.count > maxHeaderValueBytes {
                value = String(decoding: value.utf8.prefix(maxHeaderValueBytes), as: UTF8.self) + "…"
            }
            // Lengths first: most names differ in length, and comparing those is nearly free.
            let length = field.name.utf8.count
            repeated = repeated || fields.contains { $0.name.utf8.count == length && $0.name == field.name }
            fields.append((field.name, value))
        }
        guard repeated else { return .fields(fields) }
        // Rare: a name sent twice keeps its values joined, in order.
        var joined = JSONObject()
        for (name, value) in fields {
            if case .string(let earlier)? = joined[name] {
                joined[name] = .string(earlier + ", " + value)
            } else {
                joined[name] = .string(value)
            }
        }
        return .object(joined)
    }

    /// The headers as `headers(_:token:redactedAuthorization:)` logs them, sharing the request's
    /// own fields (checked by the APNs rules) when nothing else needs changing: no name sent
    /// twice and no value to cut. `http` is the same request's headers, for the other cases.
    static func headers(
        _ fields: APNsHeaderFields, http: HTTPHeaders, token: ProviderToken?, redactedAuthorization: String? = nil
    ) -> LoggedHeaders {
        let plain =
            fields.firstDuplicateName() == nil
            && fields.fields.indices.allSatisfy { fields.fields[$0].value.utf8.count <= maxHeaderValueBytes }
        guard plain else { return headers(http, token: token, redactedAuthorization: redactedAuthorization) }
        return .redacting(fields.fields, authorization: redactedAuthorization ?? redacted(token))
    }

    /// `authorization` as logged.
    static func redacted(_ token: ProviderToken?) -> String {
        guard let token else { return "(redacted)" }
        let issued =
            token.issuedAt.rounded(.down) == token.issuedAt ? String(Int64(token.issuedAt)) : String(token.issuedAt)
        return "bearer (redacted; kid=\(token.keyID) iss=\(token.teamID) iat=\(issued))"
    }

    /// The payload for the log: `parsed` when the rules already parsed it, else the body parsed
    /// now (bodies up to `maxRawPayloadBytes`), else the body as text (cut at that length), or
    /// null when there was none or it was discarded as too large.
    static func payload(_ body: [UInt8], parsed: JSONValue?, discarded: Bool) -> JSONValue {
        if let parsed { return parsed }
        if discarded || body.isEmpty { return .null }
        if body.count <= maxRawPayloadBytes, let json = try? JSONValue(parsing: body) { return json }
        return .string(String(decoding: body.prefix(maxRawPayloadBytes), as: UTF8.self))
    }

    /// The first `count` characters of a token or channel ID for log lines (never the whole token).
    static func prefix(_ value: String?, _ count: Int = 8) -> String {
        guard let value, !value.isEmpty else { return "-" }
        // Tokens and channel IDs are ASCII: cut bytes, not grapheme clusters (cut back to a
        // character boundary should a longer character straddle the cut).
        let utf8 = value.utf8
        guard utf8.count > count else { return value }
        var end = utf8.index(utf8.startIndex, offsetBy: count)
        while end > utf8.startIndex, utf8[end] & 0xC0 == 0x80 { end = utf8.index(before: end) }
        return String(value[..<end])
    }
}
