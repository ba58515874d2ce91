import RelayHTTP
import RelayServer

/// The benchmark's only route: `POST /bench` answers `200` with an empty body once the whole
/// request body has arrived (the transport hands routes complete requests), like nginx's
/// `return 200`. Anything else under `/bench` gets `405`; other paths fall through to the router's 404.
struct BenchRoutes: RouteGroup {
    func owns(_ path: String) -> Bool { path == "/bench" }

    func handle(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        guard request.request.method == "POST" else {
            respond(.full(JSONResponse.error(405, "methodNotAllowed", "use POST /bench")))
            return
        }
        if request.bodyTooLarge {
            respond(.full(JSONResponse.error(413, "tooLarge", "body over the limit")))
            return
        }
        respond(.full(HTTPResponse(status: 200)))
    }
}
