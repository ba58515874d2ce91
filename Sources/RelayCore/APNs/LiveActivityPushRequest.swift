/// A device push that passed every provider API check: what the emulated device receives.
///
/// Built by `LiveActivityPushRequest.validate(...)` (see `+Validation` for the order of checks).
public struct LiveActivityPushRequest: Sendable, Hashable {
    /// The token from `:path`.
    public var deviceToken: APNsDeviceToken
    /// The checked headers.
    public var headers: DevicePushHeaders
    /// The typed body.
    public var payload: LiveActivityPayload

    /// A request from checked parts.
    public init(deviceToken: APNsDeviceToken, headers: DevicePushHeaders, payload: LiveActivityPayload) {
        self.deviceToken = deviceToken
        self.headers = headers
        self.payload = payload
    }

    /// The app the push is for.
    public var bundleID: String { headers.bundleID }

    /// The priority in effect (10 when omitted).
    public var priority: APNsPriority { headers.priority }

    /// Hints about likely sender mistakes, headers first, then payload. The content-state shape
    /// hint needs the activity's previous state; the device adds it (`ContentStateShape`).
    public var hints: [APNsHint] { headers.hints + payload.hints }
}
