/// What the route groups need besides the service.
public struct RouteSettings: Sendable {
    /// The admin API key.
    public var adminKey: String

    public init(adminKey: String) { self.adminKey = adminKey }
}

/// Every surface of the relay, in the order the router tries them.
public enum DefaultRoutes {
    public static func all(service: RelayService, settings: RouteSettings) -> [any RouteGroup] {
        [HealthRoutes(service: service)] + AppAPI.routes(service: service, settings: settings)
    }
}
