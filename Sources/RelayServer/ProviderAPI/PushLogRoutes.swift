import RelayCore
import RelayHTTP
import RelayJSON
import RelayNet
import RelayStore

/// `GET /v1/pushes`: the push log, like the Delivery Log of Apple's console (CONTRACT §5).
///
/// Answers `{"items": [record, ...], "nextBefore": id | null}`, newest first, each record in the
/// push-record shape (headers with the token redacted, payload, status, reason, outcome, hint,
/// activity). `nextBefore` pages further back. The admin key sees every push; a device key only
/// those to its own tokens and channels (`PushLogVisibility`). The body is read and sent a page
/// at a time as the peer reads (`PushLogPages`).
package struct PushLogRoutes: RouteGroup {
    let service: RelayService
    /// The app API's bearer-key authentication (admin key or device key).
    let auth: AppAuth

    /// The push log of `service`, readable with the keys `auth` knows.
    package init(service: RelayService, auth: AppAuth) {
        self.service = service
        self.auth = auth
    }

    package func owns(_ path: String) -> Bool { path == "/v1/pushes" }

    package func handle(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
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
        if let cluster = service.cluster {
            return clusterPushes(cluster, query: query, principal: principal, request: request, respond: respond)
        }
        do {
            let visibility = principal.deviceId.map { PushLogVisibility(deviceId: $0, service: service) }
            let pages = try PushLogPages(reader: service.store.reader, query: query, visibility: visibility)
            var headers = HTTPHeaders()
            headers.add("content-type", "application/json")
            respond(.paged(HTTPResponseHead(status: 200, headers: headers), pages))
        } catch {
            RelayLog.error("pushlog.read", ["conn": String(request.context.id), "error": error.description])
            respond(.full(JSONResponse.error(500, "storeError", "the push log could not be read")))
        }
    }

    /// Cluster mode reads the fleet feed, whose `push.received` events carry every push's
    /// record (`ClusterStore.fleetPushes`), after loading a device key's device for what it may
    /// see. Without the feed (`store.redisCluster.fleetStream` false) a query names its token
    /// and one page from the token's device answers it.
    private func clusterPushes(
        _ cluster: ClusterStore, query: PushLogQuery, principal: AppPrincipal, request: ServerRequest,
        respond: @escaping @Sendable (ServerResponse) -> Void
    ) {
        let conn = String(request.context.id)
        let failed: @Sendable (StoreError) -> Void = { error in
            RelayLog.error("pushlog.read", ["conn": conn, "error": error.description])
            respond(.full(JSONResponse.error(500, "storeError", "the push log could not be read")))
        }
        guard let loop = EventLoop.current else { return failed(RelayService.offLoop) }
        guard cluster.settings.fleetStream else {
            guard let token = query.filter.token, query.before == nil, principal.deviceId == nil else {
                respond(
                    .full(
                        JSONResponse.error(
                            400, "invalidRequest",
                            "this cluster keeps no fleet feed (store.redisCluster.fleetStream is false): the admin "
                                + "reads the push log per token, GET /v1/pushes?token=..., one page")))
                return
            }
            cluster.pushes(token: token, filter: query.filter, limit: query.limit, on: loop) { outcome in
                switch outcome {
                case .success(let items):
                    respond(.full(JSONResponse.make(200, ["items": .array(items), "nextBefore": .null])))
                case .failure(let error): failed(error)
                }
            }
            return
        }
        let answer: @Sendable (PushLogVisibility?) -> Void = { visibility in
            cluster.fleetPushes(
                filter: query.filter, before: query.before, limit: query.limit, visibility: visibility, on: loop
            ) { outcome in
                switch outcome {
                case .success(let page):
                    respond(
                        .full(
                            JSONResponse.make(
                                200,
                                [
                                    "items": .array(page.items),
                                    "nextBefore": .optional(page.nextBefore.map { JSONValue.int($0) }),
                                ])))
                case .failure(let error): failed(error)
                }
            }
        }
        guard let device = principal.deviceId else { return answer(nil) }
        service.read(
            in: .device(device), { PushLogVisibility(deviceId: device, emulator: $0) },
            completion: { outcome in
                switch outcome {
                case .success(let visibility): answer(visibility)
                case .failure(let error): failed(error)
                }
            })
    }
}
