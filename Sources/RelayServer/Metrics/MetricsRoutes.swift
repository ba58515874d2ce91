import RelayCore
import RelayHTTP

/// `GET /metrics`: every metric in the Prometheus text format. On the main listener it needs
/// the admin key (it tells the relay's traffic); on the separate `metrics.listen` listener it
/// is open, as exporters usually are, and that listener serves nothing else.
package struct MetricsRoutes: RouteGroup {
    let service: RelayService
    /// nil on the metrics listener: no key asked for.
    let auth: AppAuth?

    /// Routes that check the admin key with `auth`, or none when `auth` is nil.
    package init(service: RelayService, auth: AppAuth?) {
        self.service = service
        self.auth = auth
    }

    package func owns(_ path: String) -> Bool { path == "/metrics" }

    package func handle(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        guard request.request.method == "GET" || request.request.method == "HEAD" else {
            respond(.full(JSONResponse.error(405, "methodNotAllowed", "use GET /metrics")))
            return
        }
        if let auth {
            switch auth.authenticate(request.request.headers) {
            case .refused(let response):
                respond(.full(response))
                return
            case .authenticated(let principal):
                guard case .admin = principal else {
                    respond(.full(JSONResponse.error(403, "forbidden", "GET /metrics needs the admin key")))
                    return
                }
            }
        }
        var headers = HTTPHeaders()
        headers.add("content-type", "text/plain; version=0.0.4; charset=utf-8")
        let body = Array(RelayMetrics.shared.render(service: service).utf8)
        respond(.full(HTTPResponse(status: 200, headers: headers, body: body)))
    }
}

/// The only route of the `metrics.listen` listener: `/metrics` without a key, `404` elsewhere.
package enum MetricsListenerRoutes {
    package static func all(service: RelayService) -> [any RouteGroup] {
        [MetricsRoutes(service: service, auth: nil)]
    }
}
