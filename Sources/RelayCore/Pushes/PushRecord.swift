public import RelayJSON

/// What the emulated device did with an acknowledged (or refused) push. Open, so that stored
/// records of a later version round-trip.
public struct PushOutcome: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The content was shown at once.
    public static let applied = PushOutcome("applied")
    /// A push-to-start started a new activity.
    public static let started = PushOutcome("started")
    /// Held back (budget or low priority) and shown later, coalesced with later pushes.
    public static let deferred = PushOutcome("deferred")
    /// Accepted by APNs but ignored by the device (older timestamp, activity over, wrong event).
    public static let ignored = PushOutcome("ignored")
    /// Accepted by APNs but dropped by the device (start without alert, start budget spent, ...).
    public static let dropped = PushOutcome("dropped")
    /// Refused with an APNs error status; the device never saw it.
    public static let rejected = PushOutcome("rejected")
    /// A broadcast handed to the channel's subscribers.
    public static let broadcast = PushOutcome("broadcast")
    /// Answered by an injected fault (error, GOAWAY, reset) instead of reaching the device.
    public static let injected = PushOutcome("injected")
}

/// One entry of the push log (CONTRACT section 5, like the Delivery Log of Apple's console).
///
/// A value with copy-on-write storage: a record goes to the push log, into its `push.received`
/// event and back to the caller, and each of those copies is one reference, not a retain of
/// every string in it.
public struct PushRecord: Sendable, Hashable {
    /// The fields, shared between copies until one of them changes (see `CopyOnWrite`).
    private var storage: CopyOnWrite<Storage>

    private struct Storage: Sendable, Hashable {
        var apnsId: String
        var uniqueId: String
        var receivedAt: UnixSeconds
        var token: String?
        var channelId: String?
        var bundleId: String?
        var headers: LoggedHeaders
        var payload: PushPayload
        var status: Int
        var reason: String?
        var outcome: PushOutcome
        var hint: PushHint
        var activityId: String?
        var responseBody: ResponseBody?
        var deviceName: String?
        var fault: JSONValue?
    }

    /// The body sent with an error status: as it was given, or, for a refusal the emulator
    /// answered, the error it comes from, whose body is built only when it is read (most records
    /// are logged and streamed without their body being looked at under the emulator's lock).
    private enum ResponseBody: Sendable, Hashable {
        case json(JSONValue)
        case refusal(APNsError)

        var json: JSONValue {
            switch self {
            case .json(let body): body
            case .refusal(let error): error.jsonBody
            }
        }

        /// Equal when the bodies are, however they are kept.
        static func == (left: ResponseBody, right: ResponseBody) -> Bool { left.json == right.json }

        func hash(into hasher: inout Hasher) { hasher.combine(json) }
    }

    public var apnsId: String {
        get { storage.value.apnsId }
        set { storage.value.apnsId = newValue }
    }
    public var uniqueId: String {
        get { storage.value.uniqueId }
        set { storage.value.uniqueId = newValue }
    }
    public var receivedAt: UnixSeconds {
        get { storage.value.receivedAt }
        set { storage.value.receivedAt = newValue }
    }
    public var token: String? {
        get { storage.value.token }
        set { storage.value.token = newValue }
    }
    public var channelId: String? {
        get { storage.value.channelId }
        set { storage.value.channelId = newValue }
    }
    public var bundleId: String? {
        get { storage.value.bundleId }
        set { storage.value.bundleId = newValue }
    }
    /// Request headers as sent, each a string (authorization redacted by the caller).
    public var headers: JSONObject {
        get { storage.value.headers.object }
        set { storage.value.headers = .object(newValue) }
    }
    /// The headers as the record keeps them (possibly the request's fields).
    public var loggedHeaders: LoggedHeaders {
        get { storage.value.headers }
        set { storage.value.headers = newValue }
    }
    /// The payload as JSON, or as a string when it was not valid JSON.
    public var payload: JSONValue {
        get { storage.value.payload.value }
        set { storage.value.payload = .value(newValue) }
    }
    /// The payload as the record keeps it (possibly the body's bytes).
    public var loggedPayload: PushPayload {
        get { storage.value.payload }
        set { storage.value.payload = newValue }
    }
    public var status: Int {
        get { storage.value.status }
        set { storage.value.status = newValue }
    }
    public var reason: String? {
        get { storage.value.reason }
        set { storage.value.reason = newValue }
    }
    public var outcome: PushOutcome {
        get { storage.value.outcome }
        set { storage.value.outcome = newValue }
    }
    /// A human hint where the sender likely erred; nil when nothing looks off.
    public var hint: String? {
        get { storage.value.hint.text }
        set { storage.value.hint = PushHint(newValue) }
    }
    /// The lines of `hint`, as the emulator notes them (written out when `hint` is read).
    var hintNotes: [PushNote] {
        get { storage.value.hint.notes }
        set { storage.value.hint = PushHint(newValue) }
    }
    public var activityId: String? {
        get { storage.value.activityId }
        set { storage.value.activityId = newValue }
    }
    /// The name of the device the push reached (nil when it reached none or the device has no name).
    public var deviceName: String? {
        get { storage.value.deviceName }
        set { storage.value.deviceName = newValue }
    }
    /// The injected fault that shaped the answer (`{"id", "kind", ...}`, see `FaultRule`), or nil.
    public var fault: JSONValue? {
        get { storage.value.fault }
        set { storage.value.fault = newValue }
    }
    /// `{"reason": ..., "timestamp": ...}` body sent with an error status, for the record.
    public var responseBody: JSONValue? {
        get { storage.value.responseBody?.json }
        set { storage.value.responseBody = newValue.map(ResponseBody.json) }
    }

    /// Sets `responseBody` to `error.jsonBody`, built when it is read.
    mutating func setResponseBody(of error: APNsError) { storage.value.responseBody = .refusal(error) }

    public init(
        apnsId: String, uniqueId: String, receivedAt: UnixSeconds, token: String? = nil, channelId: String? = nil,
        bundleId: String? = nil, headers: JSONObject = [:], payload: JSONValue = .null, status: Int = 200,
        reason: String? = nil, outcome: PushOutcome, hint: String? = nil, activityId: String? = nil,
        responseBody: JSONValue? = nil
    ) {
        self.init(
            apnsId: apnsId, uniqueId: uniqueId, receivedAt: receivedAt, token: token, channelId: channelId,
            bundleId: bundleId, loggedHeaders: .object(headers), loggedPayload: .value(payload), status: status,
            reason: reason,
            outcome: outcome, hint: hint, activityId: activityId, responseBody: responseBody)
    }

    /// A record whose payload is kept as `loggedPayload` (the body's bytes, when it was JSON).
    public init(
        apnsId: String, uniqueId: String, receivedAt: UnixSeconds, token: String? = nil, channelId: String? = nil,
        bundleId: String? = nil, loggedHeaders: LoggedHeaders = [:], loggedPayload: PushPayload, status: Int = 200,
        reason: String? = nil, outcome: PushOutcome, hint: String? = nil, activityId: String? = nil,
        responseBody: JSONValue? = nil
    ) {
        let payload = loggedPayload
        let headers = loggedHeaders
        storage = CopyOnWrite(
            Storage(
                apnsId: apnsId, uniqueId: uniqueId, receivedAt: receivedAt, token: token, channelId: channelId,
                bundleId: bundleId, headers: headers, payload: payload, status: status, reason: reason,
                outcome: outcome, hint: PushHint(hint), activityId: activityId,
                responseBody: responseBody.map(ResponseBody.json)))
    }

    /// The record in the push-log shape.
    public var json: JSONValue {
        var members: JSONObject = [
            "apnsId": .string(apnsId), "uniqueId": .string(uniqueId), "receivedAt": .number(receivedAt),
            "bundleId": .optional(bundleId.map(JSONValue.string)),
            "headers": .object(storage.value.headers.object), "payload": storage.value.payload.value,
            "status": .int(Int64(status)),
            "reason": .optional(reason.map(JSONValue.string)), "outcome": .string(outcome.rawValue),
            "hint": .optional(hint.map(JSONValue.string)), "activityId": .optional(activityId.map(JSONValue.string)),
        ]
        if let channelId {
            members["channelId"] = .string(channelId)
        } else {
            members["token"] = .optional(token.map(JSONValue.string))
        }
        if let responseBody { members["response"] = responseBody }
        if let deviceName { members["deviceName"] = .string(deviceName) }
        if let fault { members["fault"] = fault }
        return .object(members)
    }
}
