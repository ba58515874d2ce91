import RelayCore

extension AppPrincipal {
    /// `filter` limited to what this caller may see: a device key's stream is forced to its
    /// device; asking for another device is `403`.
    func limit(_ filter: EventFilter) -> Result<EventFilter, StreamError> {
        guard let own = deviceId else { return .success(filter) }
        if let asked = filter.deviceId, asked != own {
            return .failure(StreamError(403, "forbidden", "a device key reaches only its own device's stream"))
        }
        var limited = filter
        limited.deviceId = own
        return .success(limited)
    }
}
