import RelayCore
import RelayHTTP

/// What `GET /v1/stream` asked for: its filter, where to resume and the ticket it carries.
struct StreamQuery: Sendable, Equatable {
    var filter = EventFilter()
    /// From `Last-Event-ID` (preferred: EventSource sends it on its own reconnects) or `lastEventId`.
    var lastEventID: UInt64?
    /// A stream ticket given instead of the authorization header.
    var ticket: String?
    /// `snapshot=true`: start with the current state (ignored when resuming).
    var snapshot = false

    /// Where the subscriber starts.
    var start: EventHub.Start {
        if let lastEventID { return .after(lastEventID) }
        return snapshot ? .snapshot : .live
    }

    /// Longest identifier accepted in a filter.
    static let maxIdentifierBytes = 256

    /// The query parameters `/v1/stream` takes.
    static let parameters = [
        "deviceId", "bundleId", "activityId", "alarmId", "types", "lastEventId", "snapshot", "ticket",
    ]

    /// Parses the query and headers of `request`; an unknown parameter is a `400` (a misspelt
    /// filter would otherwise widen the stream unseen), empty ones are absent. `types` must name
    /// types from `RelayEventType.all`.
    static func parse(_ request: HTTPRequest) -> Result<StreamQuery, StreamError> {
        var query = StreamQuery()
        if let unknown = request.queryItems.first(where: { !parameters.contains($0.name) })?.name {
            return .failure(
                StreamError(
                    400, "invalidRequest",
                    "unknown parameter \(quoted(String(unknown.prefix(64)))); the stream takes "
                        + parameters.joined(separator: ", ")))
        }
        for (name, value) in request.queryItems where !value.isEmpty {
            switch name {
            case "deviceId", "bundleId", "activityId", "alarmId":
                guard value.utf8.count <= maxIdentifierBytes else {
                    return .failure(
                        StreamError(400, "invalidRequest", "\(name) is longer than \(maxIdentifierBytes) bytes"))
                }
                switch name {
                case "deviceId": query.filter.deviceId = query.filter.deviceId ?? value
                case "bundleId": query.filter.bundleId = query.filter.bundleId ?? value
                case "activityId": query.filter.activityId = query.filter.activityId ?? value
                default: query.filter.alarmId = query.filter.alarmId ?? value
                }
            case "types":
                switch parseTypes(value.split(separator: ",").map(String.init)) {
                case .success(let types): query.filter.types = types
                case .failure(let error): return .failure(error)
                }
            case "lastEventId":
                guard let id = parseEventID(value) else {
                    return .failure(
                        StreamError(400, "invalidRequest", "lastEventId \(quoted(value)) is not an event id"))
                }
                query.lastEventID = query.lastEventID ?? id
            case "snapshot":
                guard value == "true" || value == "false" || value == "1" || value == "0" else {
                    return .failure(StreamError(400, "invalidRequest", "snapshot must be true or false"))
                }
                query.snapshot = value == "true" || value == "1"
            case "ticket":
                query.ticket = query.ticket ?? String(value.prefix(512))
            default:
                break
            }
        }
        if let header = request.headers["last-event-id"], !header.isEmpty {
            guard let id = parseEventID(header) else {
                return .failure(
                    StreamError(400, "invalidRequest", "Last-Event-ID \(quoted(header)) is not an event id"))
            }
            query.lastEventID = id
        }
        return .success(query)
    }

    /// A set of event types from names (blank entries skipped); unknown names are a 400 naming
    /// them and the known ones.
    static func parseTypes(_ names: [String]) -> Result<Set<RelayEventType>?, StreamError> {
        var types = Set<RelayEventType>()
        for raw in names.prefix(64) {
            let name = raw.trimmedSpaces
            if name.isEmpty { continue }
            let type = RelayEventType(name)
            guard RelayEventType.all.contains(type) else {
                let known = RelayEventType.all.map(\.rawValue).joined(separator: ", ")
                return .failure(
                    StreamError(400, "invalidRequest", "unknown event type \(quoted(name)); known: \(known)"))
            }
            types.insert(type)
        }
        guard names.count <= 64 else {
            return .failure(StreamError(400, "invalidRequest", "types lists more than 64 names"))
        }
        return .success(types.isEmpty ? nil : types)
    }

    /// A decimal event id of at most 19 digits.
    static func parseEventID(_ text: String) -> UInt64? {
        let trimmed = text.trimmedSpaces
        guard !trimmed.isEmpty, trimmed.utf8.count <= 19, trimmed.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            return nil
        }
        return UInt64(trimmed)
    }

    /// `value` quoted for a message, cut to 64 characters.
    static func quoted(_ value: String) -> String { "\"\(value.prefix(64))\"" }
}

extension String {
    /// The text without leading and trailing spaces and tabs.
    fileprivate var trimmedSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
