import RelayHTTP
import RelayJSON

/// In cluster mode, owns the paths of what the cluster does not serve yet and answers them
/// `501` with a JSON error naming the reason, so no request reads or changes a node's own empty
/// state instead of the cluster's. README "Cluster mode" lists what is served.
struct ClusterGate: RouteGroup {
    /// Path prefixes not served: broadcast channels and broadcasts.
    static let prefixes = ["/4/broadcasts/", "/1/apps/"]

    func owns(_ path: String) -> Bool {
        let path = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        return Self.prefixes.contains(where: { path.hasPrefix($0) })
    }

    func handle(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        let error = ClusterStore.notServed
        RelayLog.info(
            "cluster.notServed",
            [
                "conn": String(request.context.id), "method": request.request.method,
                "path": String(request.request.path.prefix(200)),
            ])
        respond(.full(JSONResponse.error(error)))
    }
}
