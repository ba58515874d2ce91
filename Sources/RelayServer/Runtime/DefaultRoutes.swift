/// What the route groups need besides the service.
public struct RouteSettings: Sendable {
    /// The admin API key; it reaches every device.
    public var adminKey: AdminKey
    /// The provider keys the provider API verifies tokens against.
    public var keyring: ProviderKeyring
    /// Event-stream settings (heartbeat, buffer, ticket lifetime).
    public var stream: StreamSettings

    public init(adminKey: AdminKey, keyring: ProviderKeyring, stream: StreamSettings = StreamSettings()) {
        self.adminKey = adminKey
        self.keyring = keyring
        self.stream = stream
    }
}

/// Every surface of the relay, in the order the router tries them.
public enum DefaultRoutes {
    public static func all(service: RelayService, settings: RouteSettings) -> [any RouteGroup] {
        [HealthRoutes(service: service)] + AppAPI.routes(service: service, settings: settings)
    }
}
