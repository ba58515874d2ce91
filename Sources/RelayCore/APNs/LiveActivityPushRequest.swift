/// A device push that passed every provider API check: what the emulated device receives.
///
/// Built by `LiveActivityPushRequest.validate(...)` (see `+Validation` for the order of checks).
public struct LiveActivityPushRequest: Sendable, Hashable {
    /// The token from `:path`.
    package var deviceToken: APNsDeviceToken
    /// The checked headers.
    package let headers: DevicePushHeaders
    /// The typed body; `hints` and `update` follow it.
    public var payload: LiveActivityPayload {
        didSet {
            hints = headers.hints + payload.hints
            update = payload.activityUpdate
        }
    }

    /// A request from checked parts.
    package init(deviceToken: APNsDeviceToken, headers: DevicePushHeaders, payload: LiveActivityPayload) {
        self.deviceToken = deviceToken
        self.headers = headers
        self.payload = payload
        self.hints = headers.hints + payload.hints
        self.update = payload.activityUpdate
    }

    /// The app the push is for.
    package var bundleID: String { headers.bundleID }

    /// The priority in effect (10 when omitted).
    package var priority: APNsPriority { headers.priority }

    /// Hints about likely sender mistakes, headers first, then payload. The content-state shape
    /// hint needs the activity's previous state; the device adds it (`ContentStateShape`).
    /// Worked out when the request is made (on the server, when it is validated, outside the
    /// emulator's lock).
    package private(set) var hints: [APNsHint]

    /// What an `update` or `end` push shows: `payload.activityUpdate`, made when the request is
    /// (on the server, when it is validated, outside the emulator's lock).
    private(set) var update: ActivityUpdate
}
