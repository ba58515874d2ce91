package import RelayCore
public import RelayHTTP
package import RelayJSON

/// A set of routes under one prefix (the provider API, the app API, the stream...).
public protocol RouteGroup: Sendable {
    /// Whether this group owns `path` (its answer, even an error, then comes from it).
    func owns(_ path: String) -> Bool
    /// Answers a request this group owns; same contract as `Responder.handle`.
    func handle(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void)
}

/// Hands each request to the first group that owns its path; `404` JSON otherwise. Every answer
/// is counted in `RelayMetrics` by surface, method and status.
public struct Router: Responder {
    package let groups: [any RouteGroup]

    public init(groups: [any RouteGroup]) { self.groups = groups }

    public func handle(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        let path = request.request.path
        let method = request.request.method
        let respond: @Sendable (ServerResponse) -> Void = { response in
            let status =
                switch response {
                case .full(let full): full.status
                case .paged(let head, _): head.status
                case .stream(let head, _): head.status
                }
            RelayMetrics.shared.countRequest(path: path, method: method, status: status)
            respond(response)
        }
        guard let group = groups.first(where: { $0.owns(path) }) else {
            respond(
                .full(JSONResponse.error(404, "notFound", "no route for \(request.request.method) \(path.prefix(200))"))
            )
            return
        }
        group.handle(request, respond: respond)
    }
}

/// JSON responses in the app API's shapes.
public enum JSONResponse {
    /// `status` with `body` as JSON.
    package static func make(_ status: Int, _ body: JSONValue, headers extra: [(String, String)] = []) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("content-type", "application/json")
        for (name, value) in extra { headers.add(name, value) }
        return HTTPResponse(status: status, headers: headers, body: body.serialized())
    }

    /// `{"error": code, "message": message}` with `status`.
    public static func error(_ status: Int, _ code: String, _ message: String) -> HTTPResponse {
        make(status, ["error": .string(code), "message": .string(message)])
    }

    /// An emulator refusal as its JSON error.
    package static func error(_ error: EmulatorError) -> HTTPResponse { make(error.status, error.json) }
}

/// `GET /healthz`: `200 {"status": "ok", ...}` while the relay runs, with the clock, the
/// protocol, the stream's subscribers and the store's durability and counts (`store`).
package struct HealthRoutes: RouteGroup {
    let service: RelayService

    package init(service: RelayService) { self.service = service }

    package func owns(_ path: String) -> Bool { path == "/healthz" }

    package func handle(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        guard request.request.method == "GET" || request.request.method == "HEAD" else {
            respond(.full(JSONResponse.error(405, "methodNotAllowed", "use GET /healthz")))
            return
        }
        let writer = service.store.writer
        let statistics = writer.currentStatistics
        let body: JSONValue = [
            "status": "ok", "clock": service.clock.json, "protocol": .string(request.context.httpVersion),
            "subscribers": .int(Int64(service.subscriberCount)),
            "store": [
                "sync": .string(writer.durability.description), "commits": .int(Int64(statistics.commits)),
                "syncs": .int(Int64(statistics.syncs)), "syncFailures": .int(Int64(statistics.syncFailures)),
            ],
        ]
        respond(.full(JSONResponse.make(200, body)))
    }
}
