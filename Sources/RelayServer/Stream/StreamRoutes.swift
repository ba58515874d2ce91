import RelayCore
import RelayHTTP
import RelayJSON
import RelayNet

/// The event stream (CONTRACT section 6): `GET /v1/stream` answers `text/event-stream` over
/// HTTP/1.1 or as one HTTP/2 stream among many, and `POST /v1/stream-tickets` mints the
/// short-lived tickets browsers present instead of the authorization header.
///
/// Auth follows the app API: the admin key sees every device, a device key only its own (its
/// stream is forced to that device). Register this group before the app API's `/v1` group.
package struct StreamRoutes: RouteGroup {
    /// The stream's path.
    package static let streamPath = "/v1/stream"
    /// The ticket-minting path.
    package static let ticketsPath = "/v1/stream-tickets"
    /// The reconnection delay the stream announces first (`retry:`), in milliseconds.
    package static let retryMilliseconds = 2000

    let service: RelayService
    let auth: AppAuth
    let tickets: StreamTickets
    let heartbeat: StreamHeartbeat

    /// The stream over `service`'s hub, with `settings.stream`'s heartbeat and ticket lifetime,
    /// authenticating with the app API's `auth`. Also installs the hub's snapshot provider (the
    /// service's activities and alarms).
    package init(service: RelayService, settings: RouteSettings, auth: AppAuth) {
        self.service = service
        self.auth = auth
        tickets = StreamTickets(lifetime: settings.stream.ticketLifetime)
        heartbeat = StreamHeartbeat(interval: settings.stream.heartbeatInterval)
        service.hub.setSnapshotProvider { [weak service] filter in
            guard let service else { return EventHub.Snapshot(seq: 0, members: [:]) }
            return StreamSnapshot.make(service: service, filter: filter)
        }
    }

    package func owns(_ path: String) -> Bool { path == Self.streamPath || path == Self.ticketsPath }

    package func handle(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        switch (request.request.path, request.request.method) {
        case (Self.streamPath, "GET"):
            openStream(request, respond: respond)
        case (Self.ticketsPath, "POST"):
            mintTicket(request, respond: respond)
        case (Self.streamPath, _):
            respond(.full(StreamError(405, "methodNotAllowed", "use GET \(Self.streamPath)").response(allow: "GET")))
        default:
            respond(.full(StreamError(405, "methodNotAllowed", "use POST \(Self.ticketsPath)").response(allow: "POST")))
        }
    }

    // MARK: - GET /v1/stream

    private func openStream(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        let query: StreamQuery
        switch StreamQuery.parse(request.request) {
        case .success(let parsed): query = parsed
        case .failure(let error): return respond(.full(error.response))
        }
        guard let ticket = query.ticket else {
            switch auth.authenticate(request.request.headers) {
            case .refused(let response): return respond(.full(response))
            case .authenticated(let caller):
                return respond(open(request, query: query, principal: caller, filter: query.filter))
            }
        }
        redeem(ticket) { grant in
            guard let grant else {
                return respond(
                    .full(StreamError(401, "unauthorized", "the stream ticket is unknown, used or expired").response))
            }
            switch Self.narrow(grant.filter, by: query.filter) {
            case .success(let narrowed):
                respond(open(request, query: query, principal: grant.principal, filter: narrowed))
            case .failure(let error): respond(.full(error.response))
            }
        }
    }

    /// Takes `ticket`'s grant: from this node's memory, or in cluster mode from Redis.
    private func redeem(_ ticket: String, completion: @escaping @Sendable (StreamTickets.Grant?) -> Void) {
        let now = service.clock.realNow()
        guard let cluster = service.cluster else { return completion(tickets.redeem(ticket, now: now)) }
        guard let key = StreamTickets.key(of: ticket), let loop = EventLoop.current else { return completion(nil) }
        cluster.takeTicket(key, now: now, on: loop) { outcome in
            if case .failure(let error) = outcome {
                RelayLog.error("stream.ticket", ["error": error.description])
            }
            completion((try? outcome.get()) ?? nil)
        }
    }

    /// The answer to a stream request from `principal`, asking for `filter`.
    private func open(_ request: ServerRequest, query: StreamQuery, principal: AppPrincipal, filter: EventFilter)
        -> ServerResponse
    {
        var filter = filter
        switch principal.limit(filter) {
        case .success(let limited): filter = limited
        case .failure(let error): return .full(error.response)
        }
        if let cluster = service.cluster, filter.deviceId == nil {
            guard cluster.settings.fleetStream else {
                return .full(
                    StreamError(
                        400, "invalidRequest",
                        "this cluster keeps no fleet feed (store.redisCluster.fleetStream is false): add deviceId="
                    ).response)
            }
        }
        return streamResponse(request, query: query, filter: filter)
    }

    /// The `200` that opens the stream: live events from the hub, or in cluster mode from the
    /// device's stream in Redis, or the fleet feed when no device is named.
    private func streamResponse(_ request: ServerRequest, query: StreamQuery, filter: EventFilter) -> ServerResponse {
        var headers = HTTPHeaders()
        headers.add("content-type", "text/event-stream")
        headers.add("cache-control", "no-cache")
        headers.add("x-accel-buffering", "no")
        // A ticket is meant for a browser's EventSource, usually on another origin; the ticket in
        // the URL is the credential, so any origin may read the stream it opens.
        if query.ticket != nil { headers.add("access-control-allow-origin", "*") }
        let hub = service.hub
        let cluster = service.cluster
        let heartbeat = heartbeat
        let start = query.start
        let streamFilter = filter
        let conn = String(request.context.id)
        return .stream(HTTPResponseHead(status: 200, headers: headers)) { stream in
            stream.onEnd { reason in
                RelayMetrics.shared.countStreamEnd(reason.rawValue)
                if reason == .tooSlow {
                    RelayLog.info(
                        "stream.cut", ["conn": conn, "reason": "too slow", "buffer": String(stream.maxBufferedBytes)])
                } else {
                    RelayLog.debug("stream.close", ["conn": conn, "reason": reason.rawValue])
                }
            }
            heartbeat.add(stream)
            if let cluster {
                let after: UInt64? = if case .after(let id) = start { id } else { nil }
                if let device = streamFilter.deviceId {
                    cluster.subscribe(
                        stream, device: device, filter: streamFilter, after: after, snapshot: start == .snapshot,
                        preamble: Self.preamble)
                } else {
                    cluster.subscribeFleet(
                        stream, filter: streamFilter, after: after, snapshot: start == .snapshot,
                        preamble: Self.preamble)
                }
            } else {
                hub.subscribe(stream, filter: streamFilter, from: start, preamble: Self.preamble)
            }
        }
    }

    /// The first bytes of every stream: the reconnection delay, then a comment.
    static let preamble: [UInt8] = Array("retry: \(retryMilliseconds)\n: activity-relay event stream\n\n".utf8)

    /// A ticket's filter with the request's own narrowing: a field the ticket fixed may be
    /// repeated but not changed; types may only be narrowed.
    static func narrow(_ granted: EventFilter, by asked: EventFilter) -> Result<EventFilter, StreamError> {
        var filter = granted
        let pairs: [(WritableKeyPath<EventFilter, String?>, String)] = [
            (\.deviceId, "deviceId"), (\.bundleId, "bundleId"), (\.activityId, "activityId"), (\.alarmId, "alarmId"),
        ]
        for (path, name) in pairs {
            guard let wanted = asked[keyPath: path] else { continue }
            if let fixed = granted[keyPath: path], fixed != wanted {
                return .failure(StreamError(403, "forbidden", "the stream ticket was minted for another \(name)"))
            }
            filter[keyPath: path] = wanted
        }
        if let wanted = asked.types {
            if let fixed = granted.types, !wanted.isSubset(of: fixed) {
                return .failure(StreamError(403, "forbidden", "the stream ticket was minted for fewer event types"))
            }
            filter.types = wanted
        }
        return .success(filter)
    }

    // MARK: - POST /v1/stream-tickets

    private func mintTicket(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        let principal: AppPrincipal
        switch auth.authenticate(request.request.headers) {
        case .refused(let response): return respond(.full(response))
        case .authenticated(let caller): principal = caller
        }
        guard !request.bodyTooLarge else {
            return respond(.full(StreamError(413, "tooLarge", TransportError.bodyTooLargeMessage).response))
        }
        var filter: EventFilter
        switch Self.ticketFilter(request.request.body) {
        case .success(let parsed): filter = parsed
        case .failure(let error): return respond(.full(error.response))
        }
        switch principal.limit(filter) {
        case .success(let limited): filter = limited
        case .failure(let error): return respond(.full(error.response))
        }
        let now = service.clock.realNow()
        let minted: @Sendable (String, StreamTickets.Grant) -> ServerResponse = { ticket, grant in
            let body: JSONValue = [
                "ticket": .string(ticket), "expiresAt": .number(grant.expiresAt),
                "url": .string("\(Self.streamPath)?ticket=\(ticket)"),
            ]
            return .full(JSONResponse.make(201, body, headers: [("cache-control", "no-store")]))
        }
        guard let cluster = service.cluster, let loop = EventLoop.current else {
            switch tickets.issue(principal: principal, filter: filter, now: now) {
            case .failure(let error): return respond(.full(error.response))
            case .success(let (ticket, grant)): return respond(minted(ticket, grant))
            }
        }
        // Cluster mode: the ticket is kept in Redis, so any node redeems it (once).
        switch tickets.mint(principal: principal, filter: filter, now: now) {
        case .failure(let error): respond(.full(error.response))
        case .success(let (ticket, key, grant)):
            cluster.keepTicket(key, grant: grant, now: now, on: loop) { error in
                guard let error else { return respond(minted(ticket, grant)) }
                RelayLog.error("stream.ticket", ["error": error.description])
                respond(.full(StreamError(500, "storeError", "the stream ticket could not be stored").response))
            }
        }
    }

    /// The filter a ticket request asks for: `{deviceId?, bundleId?, activityId?, alarmId?,
    /// types?}` (types as an array of names or a comma list); an empty body asks for everything.
    static func ticketFilter(_ body: [UInt8]) -> Result<EventFilter, StreamError> {
        guard body.contains(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else {
            return .success(EventFilter())
        }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: body, maxDepth: 8)
        } catch {
            return .failure(StreamError(400, "invalidRequest", "the body is not JSON: \(error)"))
        }
        guard let members = json.objectValue else {
            return .failure(StreamError(400, "invalidRequest", "the body must be a JSON object"))
        }
        var filter = EventFilter()
        let fields: [(WritableKeyPath<EventFilter, String?>, String)] = [
            (\.deviceId, "deviceId"), (\.bundleId, "bundleId"), (\.activityId, "activityId"), (\.alarmId, "alarmId"),
        ]
        for (path, name) in fields {
            guard let value = members[name], value != .null else { continue }
            guard let text = value.stringValue, !text.isEmpty, text.utf8.count <= StreamQuery.maxIdentifierBytes else {
                return .failure(
                    StreamError(400, "invalidRequest", "\(name) must be a non-empty string of at most 256 bytes"))
            }
            filter[keyPath: path] = text
        }
        if let types = members["types"], types != .null {
            let names: [String]
            if let text = types.stringValue {
                names = text.split(separator: ",").map(String.init)
            } else if let list = types.arrayValue, list.allSatisfy({ $0.stringValue != nil }) {
                names = list.compactMap(\.stringValue)
            } else {
                return .failure(
                    StreamError(400, "invalidRequest", "types must be an array of event type names or a comma list"))
            }
            switch StreamQuery.parseTypes(names) {
            case .success(let parsed): filter.types = parsed
            case .failure(let error): return .failure(error)
            }
        }
        return .success(filter)
    }
}
