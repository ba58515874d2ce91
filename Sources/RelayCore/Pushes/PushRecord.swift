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
///
/// A value with copy-on-write storage: a record goes to the push log, into its `push.received`
/// event and back to the caller, and each of those copies is one reference, not a retain of
/// every string in it.
public struct PushRecord: Sendable, Hashable {
    /// The fields, shared between copies until one of them changes.
    private final class Storage: @unchecked Sendable {
        // Unchecked: never mutated while shared (`PushRecord` copies it first when not unique).
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
        var hint: String?
        var activityId: String?
        var responseBody: JSONValue?

        init(
            apnsId: String, uniqueId: String, receivedAt: UnixSeconds, token: String?, channelId: String?,
            bundleId: String?, headers: LoggedHeaders, payload: PushPayload, status: Int, reason: String?,
            outcome: PushOutcome, hint: String?, activityId: String?, responseBody: JSONValue?
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

        func copy() -> Storage {
            Storage(
                apnsId: apnsId, uniqueId: uniqueId, receivedAt: receivedAt, token: token, channelId: channelId,
                bundleId: bundleId, headers: headers, payload: payload, status: status, reason: reason,
                outcome: outcome, hint: hint, activityId: activityId, responseBody: responseBody)
        }
    }

    private var storage: Storage

    /// The storage, copied first when another record shares it.
    private var unique: Storage {
        mutating get {
            if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
            return storage
        }
    }

    public var apnsId: String {
        get { storage.apnsId }
        set { unique.apnsId = newValue }
    }
    public var uniqueId: String {
        get { storage.uniqueId }
        set { unique.uniqueId = newValue }
    }
    public var receivedAt: UnixSeconds {
        get { storage.receivedAt }
        set { unique.receivedAt = newValue }
    }
    public var token: String? {
        get { storage.token }
        set { unique.token = newValue }
    }
    public var channelId: String? {
        get { storage.channelId }
        set { unique.channelId = newValue }
    }
    public var bundleId: String? {
        get { storage.bundleId }
        set { unique.bundleId = newValue }
    }
    /// Request headers as sent, each a string (authorization redacted by the caller).
    public var headers: JSONObject {
        get { storage.headers.object }
        set { unique.headers = .object(newValue) }
    }
    /// The headers as the record keeps them (possibly the request's fields).
    public var loggedHeaders: LoggedHeaders {
        get { storage.headers }
        set { unique.headers = newValue }
    }
    /// The payload as JSON, or as a string when it was not valid JSON.
    public var payload: JSONValue {
        get { storage.payload.value }
        set { unique.payload = .value(newValue) }
    }
    /// The payload as the record keeps it (possibly the body's bytes).
    public var loggedPayload: PushPayload {
        get { storage.payload }
        set { unique.payload = newValue }
    }
    public var status: Int {
        get { storage.status }
        set { unique.status = newValue }
    }
    public var reason: String? {
        get { storage.reason }
        set { unique.reason = newValue }
    }
    public var outcome: PushOutcome {
        get { storage.outcome }
        set { unique.outcome = newValue }
    }
    /// A human hint where the sender likely erred; nil when nothing looks off.
    public var hint: String? {
        get { storage.hint }
        set { unique.hint = newValue }
    }
    public var activityId: String? {
        get { storage.activityId }
        set { unique.activityId = newValue }
    }
    /// `{"reason": ..., "timestamp": ...}` body sent with an error status, for the record.
    public var responseBody: JSONValue? {
        get { storage.responseBody }
        set { unique.responseBody = newValue }
    }

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
        storage = Storage(
            apnsId: apnsId, uniqueId: uniqueId, receivedAt: receivedAt, token: token, channelId: channelId,
            bundleId: bundleId, headers: headers, payload: payload, status: status, reason: reason, outcome: outcome,
            hint: hint, activityId: activityId, responseBody: responseBody)
    }

    public static func == (lhs: PushRecord, rhs: PushRecord) -> Bool {
        if lhs.storage === rhs.storage { return true }
        let (l, r) = (lhs.storage, rhs.storage)
        return l.apnsId == r.apnsId && l.uniqueId == r.uniqueId && l.receivedAt == r.receivedAt && l.token == r.token
            && l.channelId == r.channelId && l.bundleId == r.bundleId && l.headers == r.headers
            && l.payload == r.payload && l.status == r.status && l.reason == r.reason && l.outcome == r.outcome
            && l.hint == r.hint && l.activityId == r.activityId && l.responseBody == r.responseBody
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.apnsId)
        hasher.combine(storage.uniqueId)
        hasher.combine(storage.receivedAt)
        hasher.combine(storage.token)
        hasher.combine(storage.channelId)
        hasher.combine(storage.bundleId)
        hasher.combine(storage.headers)
        hasher.combine(storage.payload)
        hasher.combine(storage.status)
        hasher.combine(storage.reason)
        hasher.combine(storage.outcome)
        hasher.combine(storage.hint)
        hasher.combine(storage.activityId)
        hasher.combine(storage.responseBody)
    }

    /// The record in the push-log shape.
    public var json: JSONValue {
        var members: JSONObject = [
            "apnsId": .string(apnsId), "uniqueId": .string(uniqueId), "receivedAt": .number(receivedAt),
            "bundleId": .optional(bundleId.map(JSONValue.string)),
            "headers": .object(storage.headers.object), "payload": storage.payload.value,
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
        return .object(members)
    }
}
