import RelayCore
import RelayHTTP

/// Whom a stream request speaks for: the admin key reaches every device, a device key only its own.
public enum StreamScope: Sendable, Hashable {
    case admin
    case device(String)

    /// Resolves `authorization: bearer <key>`: the admin key (constant-time digest compare), or
    /// a device key, whose SHA-256 is compared in constant time with each device's stored hash.
    /// Nil when the header is missing or malformed or the key is unknown.
    static func resolve(_ headers: HTTPHeaders, adminKey: AdminKey, service: RelayService) -> StreamScope? {
        guard let key = bearerKey(headers) else { return nil }
        if adminKey.matches(key) { return .admin }
        let hash = DeviceKey.hash(key)
        return service.read { emulator in
            var found: String?
            for device in emulator.devices.values where ConstantTime.equal(device.keyHash, hash) { found = device.id }
            return found.map(StreamScope.device)
        }
    }

    /// The key of a `bearer` authorization header (scheme case-insensitive), bounded in length.
    static func bearerKey(_ headers: HTTPHeaders) -> String? {
        guard let value = headers["authorization"], value.utf8.count <= 1024 else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let key = parts[1].drop { $0 == " " }
        guard !key.isEmpty, !key.contains(" "), !key.contains("\t") else { return nil }
        return String(key)
    }

    /// `filter` limited to what this scope may see: a device key's stream is forced to its device;
    /// asking for another device is an error.
    func limit(_ filter: EventFilter) -> Result<EventFilter, StreamError> {
        guard case .device(let own) = self else { return .success(filter) }
        if let asked = filter.deviceId, asked != own {
            return .failure(StreamError(403, "forbidden", "a device key reaches only its own device's stream"))
        }
        var limited = filter
        limited.deviceId = own
        return .success(limited)
    }
}
