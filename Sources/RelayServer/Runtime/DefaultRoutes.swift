/// What the route groups need besides the service.
public struct RouteSettings: Sendable {
    /// The admin API key; it reaches every device.
    package var adminKey: AdminKey
    /// The provider keys the provider API verifies tokens against.
    package var keyring: ProviderKeyring
    /// Event-stream settings (heartbeat, buffer, ticket lifetime).
    package var stream: StreamSettings
    /// Provider API requests refused in a row after which a connection is closed with GOAWAY
    /// (APNs "disconnects after too many errors"); 0 never closes.
    package var providerRefusalLimit: Int
    /// The apps with the Broadcast Capability: channel management and broadcasts for any other
    /// app are `400 FeatureNotEnabled`.
    package var broadcastBundleIDs: AllowedBundleIDs
    /// The key the browser console's "send a push" form has provider tokens signed with (for an
    /// admin only); nil turns the form off.
    package var devProviderKey: DevProviderKey?
    /// The injected faults shared by the provider API, `/v1/faults` and the listener.
    package var faults: FaultInjector
    /// The browser console's templates.
    package var console: ConsoleSettings

    public init(
        adminKey: AdminKey, keyring: ProviderKeyring, stream: StreamSettings = StreamSettings(),
        providerRefusalLimit: Int = ProviderRoutes.defaultRefusalLimit, broadcastBundleIDs: AllowedBundleIDs = .any,
        devProviderKey: DevProviderKey? = nil, faults: FaultInjector = FaultInjector(),
        console: ConsoleSettings = ConsoleSettings()
    ) {
        self.console = console
        self.faults = faults
        self.adminKey = adminKey
        self.keyring = keyring
        self.stream = stream
        self.providerRefusalLimit = providerRefusalLimit
        self.broadcastBundleIDs = broadcastBundleIDs
        self.devProviderKey = devProviderKey
    }
}

/// Every surface of the relay, in the order the router tries them.
public enum DefaultRoutes {
    public static func all(service: RelayService, settings: RouteSettings) -> [any RouteGroup] {
        let auth = AppAuth(adminKey: settings.adminKey, service: service)
        let groups: [any RouteGroup] =
            [
                HealthRoutes(service: service),
                MetricsRoutes(service: service, auth: auth),
                ProviderRoutes(
                    service: service, keyring: settings.keyring, refusalLimit: settings.providerRefusalLimit,
                    broadcastBundleIDs: settings.broadcastBundleIDs, faults: settings.faults),
                // Before the /v1 app routes: the push log owns exactly /v1/pushes, the stream
                // /v1/stream and /v1/stream-tickets.
                PushLogRoutes(service: service, auth: auth),
                StreamRoutes(service: service, settings: settings, auth: auth),
                ConsoleRoutes(
                    auth: auth, devKey: settings.devProviderKey, clock: service.clock,
                    templates: settings.console.templates
                ),
            ] + AppAPI.routes(service: service, settings: settings, auth: auth)
        guard let cluster = service.cluster else { return groups }
        // Cluster mode: device keys made on other nodes are looked up before a request is
        // authenticated.
        return groups.map { group in
            // The provider API authenticates with provider tokens, health checks not at all.
            group is ProviderRoutes || group is HealthRoutes
                ? group : ClusterKeyLookup(inner: group, auth: auth, cluster: cluster)
        }
    }
}
