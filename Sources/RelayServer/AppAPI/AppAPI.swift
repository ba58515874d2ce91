import RelayCore
import RelayHTTP

/// The app API under `/v1` (CONTRACT section 5): the emulated device's side of ActivityKit and
/// AlarmKit. One route group per resource; they share one `AppAuth`.
///
/// Every request goes through the same steps, each with its own answer: an unknown path under a
/// resource is `404`, a known path with the wrong method `405` with `allow`, no or a wrong bearer
/// key `401`, a body over the limit `413`, a body that is not JSON `400 invalidJSON` (the parser's
/// message names the byte offset). Writes answer only after `RelayService.perform` has committed.
package enum AppAPI {
    /// The app API's route groups. Pass `auth` to share one `AppAuth` with other `/v1` routes
    /// (the event stream); by default the groups get their own.
    package static func routes(service: RelayService, settings: RouteSettings, auth: AppAuth? = nil) -> [any RouteGroup]
    {
        let context = AppContext(service: service, auth: auth ?? AppAuth(adminKey: settings.adminKey, service: service))
        return [
            DeviceRoutes(context: context), ActivityRoutes(context: context), AlarmRoutes(context: context),
            ClockRoutes(context: context), FaultRoutes(context: context, faults: settings.faults),
        ]
    }
}

/// What every app-API route group holds: the service and the authentication.
struct AppContext: Sendable {
    let service: RelayService
    let auth: AppAuth

    /// Answers `request` with the endpoint among `endpoints` for its method: `405` with `allow`
    /// when there is none, `401` when the caller is not authenticated, otherwise the endpoint runs.
    func dispatch(
        _ request: ServerRequest, _ endpoints: [AppEndpoint], respond: @escaping @Sendable (ServerResponse) -> Void
    ) {
        let method = request.request.method
        guard let endpoint = endpoints.first(where: { $0.method == method }) else {
            let allow = endpoints.map(\.method).joined(separator: ", ")
            let response = JSONResponse.make(
                405,
                [
                    "error": "methodNotAllowed",
                    "message": .string(
                        "\(method.prefix(20)) is not allowed on \(request.request.path.prefix(200)); use \(allow)"),
                ], headers: [("allow", allow)])
            Self.logUnrouted("app.methodNotAllowed", request, status: 405)
            respond(.full(response))
            return
        }
        switch auth.authenticate(request.request.headers) {
        case .refused(let response):
            Self.logUnrouted(endpoint.event, request, status: 401)
            respond(.full(response))
        case .authenticated(let principal):
            endpoint.run(AppCall(request: request, principal: principal, event: endpoint.event, respond: respond))
        }
    }

    /// Answers `404` for a path under a resource that names no endpoint.
    func notFound(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        Self.logUnrouted("app.notFound", request, status: 404)
        respond(
            .full(
                JSONResponse.error(
                    404, "notFound",
                    "no route for \(request.request.method.prefix(20)) \(request.request.path.prefix(200))")))
    }

    private static func logUnrouted(_ event: String, _ request: ServerRequest, status: Int) {
        RelayLog.info(
            event,
            [
                "conn": String(request.context.id), "method": String(request.request.method.prefix(20)),
                "path": String(request.request.path.prefix(200)), "status": String(status),
            ])
    }

    /// The path segments after `/v1/<resource>` (percent-decoded, empty segments dropped), or nil
    /// when `path` is not under that resource.
    static func segments(_ path: String, resource: String) -> [String]? {
        let prefix = "/v1/" + resource
        guard path.hasPrefix(prefix) else { return nil }
        let rest = path.dropFirst(prefix.utf8.count)
        guard rest.isEmpty || rest.hasPrefix("/") else { return nil }
        return rest.split(separator: "/", omittingEmptySubsequences: true).map { segment in
            // `+` is literal in a path; only `%XX` escapes are decoded.
            HTTPRequest.percentDecode(String(segment.replacing("+", with: "%2B")))
        }
    }
}

/// One method of one route: what it logs as and what it does once the caller is known.
struct AppEndpoint: Sendable {
    let method: String
    /// The log event, e.g. `app.activity.start`.
    let event: String
    let run: @Sendable (AppCall) -> Void

    init(_ method: String, _ event: String, _ run: @escaping @Sendable (AppCall) -> Void) {
        self.method = method
        self.event = event
        self.run = run
    }
}
