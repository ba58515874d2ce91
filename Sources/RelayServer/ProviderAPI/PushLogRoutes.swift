import RelayCore
import RelayHTTP
import RelayStore

/// `GET /v1/pushes`: the push log, like the Delivery Log of Apple's console (CONTRACT §5).
///
/// Answers `{"items": [record, ...], "nextBefore": id | null}`, newest first, each record in the
/// push-record shape (headers with the token redacted, payload, status, reason, outcome, hint,
/// activity). `nextBefore` pages further back. The admin key sees every push; a device key only
/// those to its own tokens and channels (`PushLogVisibility`).
public struct PushLogRoutes: RouteGroup {
    let service: RelayService
    /// The app API's bearer-key authentication (admin key or device key).
    let auth: AppAuth

    /// Rows read per page while collecting a device key's entries.
    static let scanPage = 200
    /// Most rows one device-key request looks at before answering with what it found.
    static let maxScan = 5000

    /// The push log of `service`, readable with the keys `auth` knows.
    public init(service: RelayService, auth: AppAuth) {
        self.service = service
        self.auth = auth
    }

    public func owns(_ path: String) -> Bool { path == "/v1/pushes" }

    public func handle(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        let http = request.request
        guard http.method == "GET" || http.method == "HEAD" else {
            respond(.full(JSONResponse.error(405, "methodNotAllowed", "the push log is read with GET /v1/pushes")))
            return
        }
        let principal: AppPrincipal
        switch auth.authenticate(http.headers) {
        case .refused(let refusal):
            respond(.full(refusal))
            return
        case .authenticated(let who):
            principal = who
        }
        request.context.markTrusted()
        let query: PushLogQuery
        do {
            query = try PushLogQuery(http)
        } catch {
            respond(.full(JSONResponse.error(400, "invalidRequest", error.message)))
            return
        }
        do {
            let visibility = principal.deviceId.map { PushLogVisibility(deviceId: $0, service: service) }
            let (entries, nextBefore) = try read(query, visibility: visibility)
            respond(.full(Self.response(entries, nextBefore: nextBefore)))
        } catch {
            RelayLog.error("pushlog.read", ["conn": String(request.context.id), "error": error.description])
            respond(.full(JSONResponse.error(500, "storeError", "the push log could not be read")))
        }
    }

    /// The entries a caller may see (everything when `visibility` is nil, the admin), newest
    /// first, and the id to page on from (nil at the end).
    func read(_ query: PushLogQuery, visibility: PushLogVisibility?) throws(StoreError) -> ([StoredPush], Int64?) {
        let reader = service.store.reader
        guard let visibility else {
            let rows = try reader.pushes(filter: query.filter, before: query.before, limit: query.limit)
            return (rows, rows.count == query.limit ? rows.last?.id : nil)
        }
        if let token = query.filter.token, !visibility.tokens.contains(token) { return ([], nil) }
        if let channel = query.filter.channelId, !visibility.channels.contains(channel) { return ([], nil) }
        var found: [StoredPush] = []
        var cursor = query.before
        var scanned = 0
        while found.count < query.limit, scanned < Self.maxScan {
            let rows = try reader.pushes(filter: query.filter, before: cursor, limit: Self.scanPage)
            scanned += rows.count
            for row in rows where visibility.admits(token: row.push.token, channelId: row.push.channelId) {
                found.append(row)
                if found.count == query.limit { return (found, row.id) }
            }
            guard rows.count == Self.scanPage, let last = rows.last else { return (found, nil) }
            cursor = last.id
        }
        return (found, cursor)
    }

    /// `{"items": [...], "nextBefore": ...}` built from the stored JSON records without parsing them.
    static func response(_ entries: [StoredPush], nextBefore: Int64?) -> HTTPResponse {
        var body: [UInt8] = []
        body.reserveCapacity(entries.reduce(32) { $0 + $1.push.record.count + 1 })
        body += Array(#"{"items":["#.utf8)
        var first = true
        for entry in entries where !entry.push.record.isEmpty {
            if !first { body.append(UInt8(ascii: ",")) }
            body += entry.push.record
            first = false
        }
        body += Array(#"],"nextBefore":"#.utf8)
        body += Array((nextBefore.map { String($0) } ?? "null").utf8)
        body.append(UInt8(ascii: "}"))
        var headers = HTTPHeaders()
        headers.add("content-type", "application/json")
        return HTTPResponse(status: 200, headers: headers, body: body)
    }
}
