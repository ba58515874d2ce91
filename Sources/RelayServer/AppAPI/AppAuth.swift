package import RelayCore
package import RelayHTTP
import Synchronization

/// Who is calling the app API: the admin (every device) or one device (only its own apps,
/// activities, alarms and stream).
package enum AppPrincipal: Sendable, Hashable {
    case admin
    case device(String)

    /// The device a device key is bound to; nil for the admin.
    package var deviceId: String? {
        if case .device(let id) = self { return id }
        return nil
    }

    /// Whether this caller may see and change the objects of `deviceId`.
    package func reaches(_ deviceId: String) -> Bool {
        switch self {
        case .admin: return true
        case .device(let own): return own == deviceId
        }
    }

    /// Throws `hidden` unless this caller reaches `deviceId` (nil: the object does not exist).
    /// Another device's object is answered exactly like a missing one, so a device key learns
    /// nothing about what other devices have.
    package func require(_ deviceId: String?, else hidden: EmulatorError) throws(EmulatorError) {
        guard let deviceId, reaches(deviceId) else { throw hidden }
    }

    /// `admin` or `device`, for log lines.
    var label: String { deviceId == nil ? "admin" : "device" }
}

/// Bearer-key authentication for everything under `/v1` (CONTRACT section 5).
///
/// The admin key is compared by SHA-256 digest in constant time (`AdminKey.matches`). A device key is hashed
/// (`DeviceKey.hash`) and looked up among the devices' stored hashes; a lookup's timing can at
/// most reveal something about a digest, never about a key. Keys never reach a log line.
package final class AppAuth: Sendable {
    private let adminKey: AdminKey
    private let service: RelayService
    /// Device key hash → device id, filled from the emulator and by `remember`.
    private let index = Mutex<[String: String]>([:])

    /// Longest bearer key looked at; longer ones are refused without hashing.
    static let maxKeyBytes = 512

    /// Authentication against `adminKey` and the devices of `service`.
    package init(adminKey: AdminKey, service: RelayService) {
        self.adminKey = adminKey
        self.service = service
    }

    /// What authentication found: the caller, or the `401` to answer.
    package enum Outcome: Sendable {
        case authenticated(AppPrincipal)
        case refused(HTTPResponse)
    }

    /// The caller of a request with these headers, or the `401` to answer.
    package func authenticate(_ headers: HTTPHeaders) -> Outcome {
        let values = headers.values("authorization")
        guard values.count == 1, let key = Self.bearerKey(values[0]) else {
            return .refused(Self.unauthorized(values.isEmpty ? .missing : .malformed))
        }
        guard key.utf8.count <= Self.maxKeyBytes else { return .refused(Self.unauthorized(.unknownKey)) }
        if adminKey.matches(key) { return .authenticated(.admin) }
        if let deviceId = device(forKeyHash: DeviceKey.hash(key)) { return .authenticated(.device(deviceId)) }
        return .refused(Self.unauthorized(.unknownKey))
    }

    /// The hash of the bearer key in `headers` when it is neither the admin key nor a device key
    /// this node knows yet (cluster mode then looks it up in Redis before the request runs).
    func unknownKeyHash(_ headers: HTTPHeaders) -> String? {
        let values = headers.values("authorization")
        guard values.count == 1, let key = Self.bearerKey(values[0]), key.utf8.count <= Self.maxKeyBytes,
            !adminKey.matches(key)
        else { return nil }
        let hash = DeviceKey.hash(key)
        return index.withLock { $0[hash] } == nil ? hash : nil
    }

    /// Records a device created through the API so its key works at once.
    func remember(deviceId: String, keyHash: String) {
        index.withLock { $0[keyHash] = deviceId }
    }

    /// The device whose key hashes to `hash`. On a miss the index is rebuilt when the emulator
    /// knows a different number of devices (a restart, or a device created by another route).
    private func device(forKeyHash hash: String) -> String? {
        if let id = index.withLock({ $0[hash] }) { return id }
        let known = index.withLock { $0.count }
        let rebuilt: [String: String]? = service.read { emulator in
            guard emulator.devices.count != known else { return nil }
            var fresh: [String: String] = [:]
            for device in emulator.devices.values { fresh[device.keyHash] = device.id }
            return fresh
        }
        guard let rebuilt else { return nil }
        index.withLock { $0 = rebuilt }
        return rebuilt[hash]
    }

    /// The key of an `authorization: Bearer <key>` value (scheme case-insensitive), or nil.
    static func bearerKey(_ value: String) -> String? {
        let parts = value.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1])
    }

    /// Why a request was not authenticated.
    enum Refusal {
        case missing, malformed, unknownKey
    }

    /// `401` with `www-authenticate: Bearer` (and RFC 6750's `invalid_token` for a wrong key).
    static func unauthorized(_ refusal: Refusal) -> HTTPResponse {
        let message: String
        var challenge = "Bearer realm=\"activity-relay\""
        switch refusal {
        case .missing:
            message = "send authorization: Bearer <key> with the admin key or a device key"
        case .malformed:
            message = "the authorization header must be exactly one 'Bearer <key>'"
            challenge += ", error=\"invalid_request\""
        case .unknownKey:
            message = "the bearer key is neither the admin key nor the key of a device"
            challenge += ", error=\"invalid_token\""
        }
        return JSONResponse.make(
            401, ["error": "unauthorized", "message": .string(message)], headers: [("www-authenticate", challenge)])
    }
}
