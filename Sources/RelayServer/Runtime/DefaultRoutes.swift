/// What the route groups need besides the service.
public struct RouteSettings: Sendable {
    /// The admin API key.
    public var adminKey: String
    /// The provider keys whose tokens the provider API accepts.
    public var providerKeyring: ProviderKeyring
    /// Provider API requests refused in a row after which a connection is closed with GOAWAY
    /// (APNs "disconnects after too many errors"); 0 never closes.
    public var providerRefusalLimit: Int

    public init(
        adminKey: String, providerKeyring: ProviderKeyring = ProviderKeyring(keys: []),
        providerRefusalLimit: Int = ProviderRoutes.defaultRefusalLimit
    ) {
        self.adminKey = adminKey
        self.providerKeyring = providerKeyring
        self.providerRefusalLimit = providerRefusalLimit
    }
}

/// Every surface of the relay, in the order the router tries them.
public enum DefaultRoutes {
    public static func all(service: RelayService, settings: RouteSettings) -> [any RouteGroup] {
        [
            HealthRoutes(service: service),
            ProviderRoutes(
                service: service, keyring: settings.providerKeyring, refusalLimit: settings.providerRefusalLimit),
            // Before any /v1 app routes group: the push log owns exactly /v1/pushes.
            PushLogRoutes(service: service, adminKey: settings.adminKey),
        ]
    }
}
