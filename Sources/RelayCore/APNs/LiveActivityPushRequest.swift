/// A device push that passed every provider API check: what the emulated device receives.
///
/// Built by `LiveActivityPushRequest.validate(...)` (see `+Validation` for the order of checks).
public struct LiveActivityPushRequest: Sendable, Hashable {
    /// The token from `:path`.
    public var deviceToken: APNsDeviceToken {
        get { parts.value.deviceToken }
        set { parts.value.deviceToken = newValue }
    }
    /// The checked headers.
    public var headers: DevicePushHeaders {
        get { parts.value.headers }
        set {
            parts.value.headers = newValue
            parts.value.hints = newValue.hints + payload.hints
        }
    }
    /// The typed body.
    public var payload: LiveActivityPayload {
        get { parts.value.payload }
        set {
            parts.value.payload = newValue
            parts.value.hints = headers.hints + newValue.hints
            parts.value.update = newValue.activityUpdate
        }
    }

    /// The three parts behind one box (see `CopyOnWrite`): a request is passed along and copied
    /// several times per push, and each copy of the strings and JSON in its parts cost about ten
    /// reference-count operations.
    private var parts: CopyOnWrite<Parts>

    private struct Parts: Sendable, Hashable {
        var deviceToken: APNsDeviceToken
        var headers: DevicePushHeaders
        var payload: LiveActivityPayload
        /// `headers.hints + payload.hints`, kept with them by the initializer and the setters.
        var hints: [APNsHint]
        /// `payload.activityUpdate`, kept with it likewise.
        var update: ActivityUpdate
    }

    /// A request from checked parts.
    public init(deviceToken: APNsDeviceToken, headers: DevicePushHeaders, payload: LiveActivityPayload) {
        parts = CopyOnWrite(
            Parts(
                deviceToken: deviceToken, headers: headers, payload: payload, hints: headers.hints + payload.hints,
                update: payload.activityUpdate))
    }

    /// The app the push is for.
    public var bundleID: String { headers.bundleID }

    /// The priority in effect (10 when omitted).
    public var priority: APNsPriority { headers.priority }

    /// Hints about likely sender mistakes, headers first, then payload. The content-state shape
    /// hint needs the activity's previous state; the device adds it (`ContentStateShape`).
    /// Worked out when the request is made (on the server, when it is validated, outside the
    /// emulator's lock).
    public var hints: [APNsHint] { parts.value.hints }

    /// What an `update` or `end` push shows: `payload.activityUpdate`, made when the request is
    /// (on the server, when it is validated, outside the emulator's lock).
    var update: ActivityUpdate { parts.value.update }
}
