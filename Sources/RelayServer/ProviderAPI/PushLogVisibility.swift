import RelayCore

/// What a device key may see of the push log: the pushes addressed to the device's own tokens
/// (its activities' update tokens and its push-to-start tokens) and the broadcasts on channels
/// its activities subscribe to. Refused pushes whose path named no token of the device stay
/// invisible to it, whatever they were meant for. The admin key sees everything.
struct PushLogVisibility: Sendable {
    var tokens: Set<String>
    var channels: Set<String>

    /// The tokens and channels of `deviceId` as the emulator knows them now (activities and
    /// their tokens are never forgotten, so earlier pushes stay visible).
    init(deviceId: String, service: RelayService) {
        self = service.read { emulator in PushLogVisibility(deviceId: deviceId, emulator: emulator) }
    }

    /// The tokens and channels of `deviceId` in `emulator`.
    init(deviceId: String, emulator: DeviceEmulator) {
        tokens = Set(emulator.devices[deviceId]?.pushToStartTokens.map(\.token) ?? [])
        channels = []
        for activity in emulator.activities.values where activity.deviceId == deviceId {
            if let token = activity.pushToken { tokens.insert(token) }
            if let channel = activity.channelId { channels.insert(channel) }
        }
    }

    /// Whether an entry for `token` or `channelId` concerns the device.
    func admits(token: String?, channelId: String?) -> Bool {
        if let token, tokens.contains(token) { return true }
        if let channelId, channels.contains(channelId) { return true }
        return false
    }
}
