package import RelayJSON

/// What the emulated device did with an acknowledged (or refused) push. Open, so that stored
/// records of a later version round-trip.
public struct PushOutcome: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    package init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The content was shown at once.
    public static let applied = PushOutcome("applied")
    /// A push-to-start started a new activity.
    package static let started = PushOutcome("started")
    /// Held back (budget or low priority) and shown later, coalesced with later pushes.
    package static let deferred = PushOutcome("deferred")
    /// Accepted by APNs but ignored by the device (older timestamp, activity over, wrong event).
    package static let ignored = PushOutcome("ignored")
    /// Accepted by APNs but dropped by the device (start without alert, start budget spent, ...).
    package static let dropped = PushOutcome("dropped")
    /// Refused with an APNs error status; the device never saw it.
    package static let rejected = PushOutcome("rejected")
    /// A broadcast handed to the channel's subscribers.
    package static let broadcast = PushOutcome("broadcast")
    /// Answered by an injected fault (error, GOAWAY, reset) instead of reaching the device.
    package static let injected = PushOutcome("injected")
}

/// One entry of the push log (CONTRACT section 5, like the Delivery Log of Apple's console).
public struct PushRecord: Sendable, Hashable {

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

    package var apnsId: String
    package var uniqueId: String
    package var receivedAt: UnixSeconds
    package var token: String?
    package var channelId: String?
    package var bundleId: String?
    /// Request headers as sent, each a string (authorization redacted by the caller).
    package var headers: JSONObject {
        get { loggedHeaders.object }
        set { loggedHeaders = .object(newValue) }
    }
    /// The headers as the record keeps them (possibly the request's fields).
    package var loggedHeaders: LoggedHeaders
    /// The payload as JSON, or as a string when it was not valid JSON.
    package var payload: JSONValue {
        get { loggedPayload.value }
        set { loggedPayload = .value(newValue) }
    }
    /// The payload as the record keeps it (possibly the body's bytes).
    package var loggedPayload: PushPayload
    package var status: Int
    public var reason: String?
    public var outcome: PushOutcome
    /// A human hint where the sender likely erred; nil when nothing looks off.
    package var hint: String? {
        get { pushHint.text }
        set { pushHint = PushHint(newValue) }
    }
    /// The lines of `hint`, as the emulator notes them (written out when `hint` is read).
    var hintNotes: [PushNote] {
        get { pushHint.notes }
        set { pushHint = PushHint(newValue) }
    }
    private var pushHint: PushHint
    package var activityId: String?
    /// The name of the device the push reached (nil when it reached none or the device has no name).
    package var deviceName: String?
    /// The injected fault that shaped the answer (`{"id", "kind", ...}`, see `FaultRule`), or nil.
    package var fault: JSONValue?
    /// `{"reason": ..., "timestamp": ...}` body sent with an error status, for the record.
    package var responseBody: JSONValue? {
        get { errorBody?.json }
        set { errorBody = newValue.map(ResponseBody.json) }
    }
    private var errorBody: ResponseBody?

    /// Sets `responseBody` to `error.jsonBody`, built when it is read.
    mutating func setResponseBody(of error: APNsError) { errorBody = .refusal(error) }

    package init(
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
    package init(
        apnsId: String, uniqueId: String, receivedAt: UnixSeconds, token: String? = nil, channelId: String? = nil,
        bundleId: String? = nil, loggedHeaders: LoggedHeaders = [:], loggedPayload: PushPayload, status: Int = 200,
        reason: String? = nil, outcome: PushOutcome, hint: String? = nil, activityId: String? = nil,
        responseBody: JSONValue? = nil
    ) {
        self.apnsId = apnsId
        self.uniqueId = uniqueId
        self.receivedAt = receivedAt
        self.token = token
        self.channelId = channelId
        self.bundleId = bundleId
        self.loggedHeaders = loggedHeaders
        self.loggedPayload = loggedPayload
        self.status = status
        self.reason = reason
        self.outcome = outcome
        self.pushHint = PushHint(hint)
        self.activityId = activityId
        self.errorBody = responseBody.map(ResponseBody.json)
    }

    /// The record in the push-log shape.
    package var json: JSONValue {
        var members: JSONObject = [
            "apnsId": .string(apnsId), "uniqueId": .string(uniqueId), "receivedAt": .number(receivedAt),
            "bundleId": .optional(bundleId.map(JSONValue.string)),
            "headers": .object(loggedHeaders.object), "payload": loggedPayload.value,
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
