import RelayCore
import RelayHTTP
package import RelayJSON
import RelayNet

/// The browser console: the page at `/` and its files under `/console/`, served from the binary
/// with a strict content security policy, plus two calls only the page needs.
///
/// - `GET|HEAD /` and `/console/{console.js, console.css, icon.svg}`: the files (`ConsoleAsset`).
/// - `GET /console/me` (bearer key) → `{"principal": "admin" | "device", "deviceId", "canSendPushes"}`.
/// - `GET /console/templates` (bearer key) → `{"templates": {attributesType: template}}`, the
///   config's `console.templates` (`ConsoleSettings`).
/// - `POST /console/provider-token` (admin key only) → `{"token", "teamId", "keyId", "issuedAt"}`:
///   a provider JWT of the development key, so the page's "send a push" form can call the real
///   provider API. A device key may not mint one: the development key pushes to every app.
///
/// The page keeps the key in memory only; it never travels in a URL.
package struct ConsoleRoutes: RouteGroup {
    static let mePath = "/console/me"
    static let providerTokenPath = "/console/provider-token"
    static let templatesPath = "/console/templates"

    let auth: AppAuth
    let devKey: DevProviderKey?
    let clock: RelayTimeSource
    let templates: JSONObject
    private let assets: [String: ConsoleAsset]

    /// The console authenticating with `auth`, minting tokens of `devKey` (none: the form is off)
    /// with real time from `clock`, offering the page `templates` by attributes type.
    package init(auth: AppAuth, devKey: DevProviderKey?, clock: RelayTimeSource, templates: JSONObject = [:]) {
        self.auth = auth
        self.templates = templates
        self.devKey = devKey
        self.clock = clock
        var assets: [String: ConsoleAsset] = [:]
        for asset in ConsoleAsset.all { assets[asset.path] = asset }
        assets["/index.html"] = assets["/"]
        self.assets = assets
    }

    package func owns(_ path: String) -> Bool { path == "/" || path == "/index.html" || path.hasPrefix("/console/") }

    package func handle(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        let path = request.request.path
        let method = request.request.method
        switch path {
        case Self.mePath:
            guard method == "GET" else { return respond(.full(Self.methodNotAllowed("GET", path))) }
            respond(.full(me(request)))
        case Self.templatesPath:
            guard method == "GET" else { return respond(.full(Self.methodNotAllowed("GET", path))) }
            switch auth.authenticate(request.request.headers) {
            case .refused(let response): respond(.full(response))
            case .authenticated:
                respond(
                    .full(
                        JSONResponse.make(
                            200, ["templates": .object(templates)], headers: [("cache-control", "no-store")])))
            }
        case Self.providerTokenPath:
            guard method == "POST" else { return respond(.full(Self.methodNotAllowed("POST", path))) }
            respond(.full(providerToken(request)))
        default:
            guard let asset = assets[path] else {
                return respond(
                    .full(JSONResponse.error(404, "notFound", "the console has no file \(path.prefix(200))")))
            }
            guard method == "GET" || method == "HEAD" else {
                return respond(.full(Self.methodNotAllowed("GET", path)))
            }
            respond(
                .full(asset.response(ifNoneMatch: request.request.headers["if-none-match"], head: method == "HEAD")))
        }
    }

    private func me(_ request: ServerRequest) -> HTTPResponse {
        switch auth.authenticate(request.request.headers) {
        case .refused(let response):
            return response
        case .authenticated(let principal):
            let body: JSONValue = [
                "principal": .string(principal.label), "deviceId": .optional(principal.deviceId.map(JSONValue.string)),
                "canSendPushes": .bool(principal == .admin && devKey != nil),
            ]
            return JSONResponse.make(200, body, headers: [("cache-control", "no-store")])
        }
    }

    private func providerToken(_ request: ServerRequest) -> HTTPResponse {
        switch auth.authenticate(request.request.headers) {
        case .refused(let response):
            return response
        case .authenticated(.device):
            return JSONResponse.error(
                403, "forbidden",
                "only the admin key may mint provider tokens; sign in with the admin key to send pushes")
        case .authenticated(.admin):
            guard let devKey else {
                return JSONResponse.error(
                    404, "notFound", "this relay has no development provider key to sign pushes with")
            }
            let issuedAt = Int64(clock.realNow().rounded(.down))
            do {
                let token = try JWTSigner.makeProviderToken(
                    teamID: devKey.teamID, keyID: devKey.keyID, issuedAt: issuedAt, key: devKey.key)
                let body: JSONValue = [
                    "token": .string(token), "teamId": .string(devKey.teamID), "keyId": .string(devKey.keyID),
                    "issuedAt": .int(issuedAt),
                ]
                return JSONResponse.make(201, body, headers: [("cache-control", "no-store")])
            } catch {
                return JSONResponse.error(500, "internal", "cannot sign a provider token: \(error)")
            }
        }
    }

    private static func methodNotAllowed(_ allowed: String, _ path: String) -> HTTPResponse {
        var response = JSONResponse.error(405, "methodNotAllowed", "use \(allowed) \(path.prefix(200))")
        response.headers.add("allow", allowed == "GET" ? "GET, HEAD" : allowed)
        return response
    }
}
