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
    public var deviceId: String? {
        get { routing.value.deviceId }
        set { routing.value.deviceId = newValue }
    }
    public var bundleId: String? {
        get { routing.value.bundleId }
        set { routing.value.bundleId = newValue }
    }
    public var activityId: String? {
        get { routing.value.activityId }
        set { routing.value.activityId = newValue }
    }
    public var alarmId: String? {
        get { routing.value.alarmId }
        set { routing.value.alarmId = newValue }
    }
    /// The subject's key in `data` (`activity`, `alarm`, `push`, `clock`).
    public var subjectKey: String {
        get { routing.value.subjectKey }
        set { routing.value.subjectKey = newValue }
    }
    /// The subject in its CONTRACT section 5 shape. Events the emulator records keep the subject's
    /// value and build this JSON each time it is read (see `RecordedJSON`); read it once per event.
    public var subject: JSONValue {
        get { source.json }
        set { source = .json(newValue) }
    }
    /// Extra top-level members (for example `reason` on `activity.ended`).
    public var extra: JSONObject {
        get { routing.value.extra }
        set { routing.value.extra = newValue }
    }
    /// Where `subject` comes from.
    var source: RecordedJSON
    /// The members fixed when the event is recorded, behind one box (see `CopyOnWrite`): an event
    /// is copied a few times on its way to the store and the stream, and each copy of six strings
    /// and an object cost a dozen reference-count operations.
    private var routing: CopyOnWrite<Routing>

    private struct Routing: Sendable {
        var deviceId: String?
        var bundleId: String?
        var activityId: String?
        var alarmId: String?
        var subjectKey: String
        var extra: JSONObject
    }

    public init(
        seq: UInt64 = 0, type: RelayEventType, at: UnixSeconds, deviceId: String? = nil, bundleId: String? = nil,
        activityId: String? = nil, alarmId: String? = nil, subjectKey: String, subject: JSONValue,
        extra: JSONObject = [:]
    ) {
        self.init(
            type: type, at: at, deviceId: deviceId, bundleId: bundleId, activityId: activityId, alarmId: alarmId,
            subjectKey: subjectKey, source: .json(subject), extra: extra)
        self.seq = seq
    }

    /// An event whose subject JSON is built from `source` when read.
    init(
        type: RelayEventType, at: UnixSeconds, deviceId: String?, bundleId: String?, activityId: String? = nil,
        alarmId: String? = nil, subjectKey: String, source: RecordedJSON, extra: JSONObject = [:]
    ) {
        self.seq = 0
        self.type = type
        self.at = at
        self.source = source
        routing = CopyOnWrite(
            Routing(
                deviceId: deviceId, bundleId: bundleId, activityId: activityId, alarmId: alarmId,
                subjectKey: subjectKey, extra: extra))
    }

    /// Events are equal when every member and the subject's JSON are, however the subject is kept.
    public static func == (lhs: RelayEvent, rhs: RelayEvent) -> Bool {
        lhs.seq == rhs.seq && lhs.type == rhs.type && lhs.at == rhs.at && lhs.deviceId == rhs.deviceId
            && lhs.bundleId == rhs.bundleId && lhs.activityId == rhs.activityId && lhs.alarmId == rhs.alarmId
            && lhs.subjectKey == rhs.subjectKey && lhs.extra == rhs.extra && lhs.subject == rhs.subject
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(seq)
        hasher.combine(type)
        hasher.combine(at)
        hasher.combine(deviceId)
        hasher.combine(bundleId)
        hasher.combine(activityId)
        hasher.combine(alarmId)
        hasher.combine(subjectKey)
        hasher.combine(extra)
        hasher.combine(subject)
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
