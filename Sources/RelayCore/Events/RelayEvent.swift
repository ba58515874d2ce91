/// One state change, as it is logged durably and fanned out to subscribers.
///
/// `data` is the JSON the stream sends: `{"seq", "type", "at", ...}` with the subject under its
/// own key (`activity`, `alarm`, `push` or `clock`). The routing fields (device, bundle, activity,
/// alarm) are kept beside it so filters never have to look inside the JSON.
public struct RelayEvent: Sendable, Hashable {
    /// Global, strictly increasing sequence number; 0 until the event is sequenced.
    public var seq: UInt64
    public var type: RelayEventType
    /// When it happened, on the relay's clock.
    public var at: UnixSeconds
    public var deviceId: String?
    public var bundleId: String?
    public var activityId: String?
    public var alarmId: String?
    /// The subject's key in `data` (`activity`, `alarm`, `push`, `clock`).
    public var subjectKey: String
    /// The subject in its CONTRACT section 5 shape.
    public var subject: JSONValue
    /// Extra top-level members (for example `reason` on `activity.ended`).
    public var extra: [String: JSONValue]

    public init(
        seq: UInt64 = 0, type: RelayEventType, at: UnixSeconds, deviceId: String? = nil, bundleId: String? = nil,
        activityId: String? = nil, alarmId: String? = nil, subjectKey: String, subject: JSONValue,
        extra: [String: JSONValue] = [:]
    ) {
        self.seq = seq
        self.type = type
        self.at = at
        self.deviceId = deviceId
        self.bundleId = bundleId
        self.activityId = activityId
        self.alarmId = alarmId
        self.subjectKey = subjectKey
        self.subject = subject
        self.extra = extra
    }

    /// The event as the stream's `data:` line carries it.
    public var data: JSONValue {
        var members = extra
        members["seq"] = .int(Int64(clamping: seq))
        members["type"] = .string(type.rawValue)
        members["at"] = .number(at)
        if let deviceId { members["deviceId"] = .string(deviceId) }
        members[subjectKey] = subject
        return .object(members)
    }

    /// Whether a subscriber's filter lets this event through.
    public func matches(_ filter: EventFilter) -> Bool {
        if let wanted = filter.deviceId, wanted != deviceId { return false }
        if let wanted = filter.bundleId, wanted != bundleId { return false }
        if let wanted = filter.activityId, wanted != activityId { return false }
        if let wanted = filter.alarmId, wanted != alarmId { return false }
        if let types = filter.types, !types.contains(type) { return false }
        return true
    }
}

/// What a subscriber asked to see; nil members match everything.
public struct EventFilter: Sendable, Hashable {
    public var deviceId: String?
    public var bundleId: String?
    public var activityId: String?
    public var alarmId: String?
    public var types: Set<RelayEventType>?

    public init(
        deviceId: String? = nil, bundleId: String? = nil, activityId: String? = nil, alarmId: String? = nil,
        types: Set<RelayEventType>? = nil
    ) {
        self.deviceId = deviceId
        self.bundleId = bundleId
        self.activityId = activityId
        self.alarmId = alarmId
        self.types = types
    }
}
