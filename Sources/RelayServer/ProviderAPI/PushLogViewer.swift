import RelayCore
import RelayNet

/// Who is reading the push log, and what they may see.
///
/// The admin key sees every push. A device key (the `deviceKey` of `POST /v1/devices`) sees the
/// pushes addressed to its own tokens: its activities' update tokens and its push-to-start
/// tokens, plus the broadcasts on channels its activities subscribe to. Refused pushes whose
/// path named no token of the device stay invisible to it, whatever they were meant for.
enum PushLogViewer: Sendable {
    /// The admin key: everything.
    case admin
    /// A device key: only what `visibility` admits.
    case device(id: String, visibility: Visibility)

    /// The tokens and channels of one device.
    struct Visibility: Sendable {
        var tokens: Set<String>
        var channels: Set<String>

        /// Whether an entry for `token` or `channelId` concerns the device.
        func admits(token: String?, channelId: String?) -> Bool {
            if let token, tokens.contains(token) { return true }
            if let channelId, channels.contains(channelId) { return true }
            return false
        }
    }

    /// The viewer `authorization` (`bearer <key>`) identifies, or nil when it names no key.
    /// The admin key is compared by SHA-256 digest in constant time; a device key is hashed once
    /// and looked up among the devices' stored key hashes.
    static func resolve(authorization: String?, adminDigest: [UInt8], service: RelayService) -> PushLogViewer? {
        guard let key = bearerKey(authorization) else { return nil }
        if !adminDigest.isEmpty, ConstantTime.equal(SHA256.hash(Array(key.utf8)), adminDigest) { return .admin }
        let hash = DeviceKey.hash(key)
        return service.read { emulator -> PushLogViewer? in
            guard let device = emulator.devices.values.first(where: { ConstantTime.equal($0.keyHash, hash) }) else {
                return nil
            }
            var visibility = Visibility(tokens: Set(device.pushToStartTokens.map(\.token)), channels: [])
            for activity in emulator.activities.values where activity.deviceId == device.id {
                if let token = activity.pushToken { visibility.tokens.insert(token) }
                if let channel = activity.channelId { visibility.channels.insert(channel) }
            }
            return .device(id: device.id, visibility: visibility)
        }
    }

    /// Longest key accepted in the header.
    static let maxKeyLength = 512

    /// The key of `bearer <key>` (scheme in any letter case), or nil.
    static func bearerKey(_ authorization: String?) -> String? {
        guard let authorization, authorization.utf8.count <= maxKeyLength + 7 else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let key = parts[1].trimmingSpaces
        return key.isEmpty ? nil : key
    }
}

extension Substring {
    /// The text without leading and trailing spaces.
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
