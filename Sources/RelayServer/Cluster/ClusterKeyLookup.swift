import RelayHTTP
import RelayNet
import RelayRedis

/// In cluster mode, wraps a route group so that a device key made on another node works here:
/// before the request is handled, a bearer key this node does not know is looked up in Redis
/// (`dkey:{<hash>}`) and, when found, remembered; authentication itself then runs as on one
/// relay. A key that is not found costs one read and gets the usual `401`.
struct ClusterKeyLookup: RouteGroup {
    let inner: any RouteGroup
    let auth: AppAuth
    let cluster: ClusterStore

    func owns(_ path: String) -> Bool { inner.owns(path) }

    func handle(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        guard let hash = auth.unknownKeyHash(request.request.headers), let loop = EventLoop.current else {
            return inner.handle(request, respond: respond)
        }
        let client = cluster.client(on: loop)
        let inner = inner
        let auth = auth
        client.send(RedisCommand(["GET", ClusterKeys.deviceKey(hash)], idempotent: true)) { result in
            if case .success(let value) = result, let device = value.string {
                auth.remember(deviceId: device, keyHash: hash)
            }
            inner.handle(request, respond: respond)
        }
    }
}
