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
}

/// One entry of the push log (CONTRACT section 5, like the Delivery Log of Apple's console).
public struct PushRecord: Sendable, Hashable {
    public var apnsId: String
    public var uniqueId: String
    public var receivedAt: UnixSeconds
    public var token: String?
    public var channelId: String?
    public var bundleId: String?
    /// Request headers as sent (authorization redacted by the caller).
    public var headers: [String: String]
    /// The payload as JSON, or as a string when it was not valid JSON.
    public var payload: JSONValue
    public var status: Int
    public var reason: String?
    public var outcome: PushOutcome
    /// A human hint where the sender likely erred; nil when nothing looks off.
    public var hint: String?
    public var activityId: String?
    /// `{"reason": ..., "timestamp": ...}` body sent with an error status, for the record.
    public var responseBody: JSONValue?

    public init(
        apnsId: String, uniqueId: String, receivedAt: UnixSeconds, token: String? = nil, channelId: String? = nil,
        bundleId: String? = nil, headers: [String: String] = [:], payload: JSONValue = .null, status: Int = 200,
        reason: String? = nil, outcome: PushOutcome, hint: String? = nil, activityId: String? = nil,
        responseBody: JSONValue? = nil
    ) {
        self.apnsId = apnsId
        self.uniqueId = uniqueId
        self.receivedAt = receivedAt
        self.token = token
        self.channelId = channelId
        self.bundleId = bundleId
        self.headers = headers
        self.payload = payload
        self.status = status
        self.reason = reason
        self.outcome = outcome
        self.hint = hint
        self.activityId = activityId
        self.responseBody = responseBody
    }

    /// The record in the push-log shape.
    public var json: JSONValue {
        var members: JSONObject = [
            "apnsId": .string(apnsId), "uniqueId": .string(uniqueId), "receivedAt": .number(receivedAt),
            "bundleId": .optional(bundleId.map(JSONValue.string)),
            "headers": .object(JSONObject(headers.mapValues(JSONValue.string))), "payload": payload, "status": .int(Int64(status)),
            "reason": .optional(reason.map(JSONValue.string)), "outcome": .string(outcome.rawValue),
            "hint": .optional(hint.map(JSONValue.string)), "activityId": .optional(activityId.map(JSONValue.string)),
        ]
        if let channelId { members["channelId"] = .string(channelId) } else { members["token"] = .optional(token.map(JSONValue.string)) }
        if let responseBody { members["response"] = responseBody }
        return .object(members)
    }
}
