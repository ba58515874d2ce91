package import RelayJSON

/// One state change, as it is logged durably and fanned out to subscribers.
///
/// `data` is the JSON the stream sends: `{"seq", "type", "at", ...}` with the subject under its
/// own key (`activity`, `alarm`, `push` or `clock`). The routing fields (device, bundle, activity,
/// alarm) are kept beside it, or read from the subject's value, so filters never have to look
/// inside the JSON.
public struct RelayEvent: Sendable, Hashable {
    /// Global, strictly increasing sequence number; 0 until the event is sequenced.
    package var seq: UInt64
    public var type: RelayEventType
    /// When it happened, on the relay's clock.
    package var at: UnixSeconds
    package var deviceId: String? {
        switch routing {
        case .activity: snapshot?.deviceId
        case .push(let deviceId): deviceId
        case .fields(let fields): fields.deviceId
        }
    }
    package var bundleId: String? {
        switch routing {
        case .activity: snapshot?.bundleId
        case .push: record?.bundleId
        case .fields(let fields): fields.bundleId
        }
    }
    package var activityId: String? {
        switch routing {
        case .activity: snapshot?.id
        case .push: record?.activityId
        case .fields(let fields): fields.activityId
        }
    }
    package var alarmId: String? {
        switch routing {
        case .activity, .push: nil
        case .fields(let fields): fields.alarmId
        }
    }
    /// The subject's key in `data` (`activity`, `alarm`, `push`, `clock`).
    package var subjectKey: String {
        switch routing {
        case .activity: "activity"
        case .push: "push"
        case .fields(let fields): fields.subjectKey
        }
    }
    /// The subject in its CONTRACT section 5 shape. Events the emulator records keep the subject's
    /// value and build this JSON each time it is read (see `RecordedJSON`); read it once per event.
    package var subject: JSONValue { source.json }
    /// Extra top-level members (for example `reason` on `activity.ended`).
    package let extra: JSONObject
    /// Where `subject` comes from.
    let source: RecordedJSON
    /// Where the routing members come from. An event is copied a few times on its way to the
    /// store and the stream, so they are not stored one by one: an activity's or a push's event
    /// (most of them) reads them from the subject it carries and allocates nothing of its own;
    /// other events keep them behind one reference.
    private let routing: Routing

    private enum Routing: Sendable {
        /// The device, bundle and ID of the activity in `source`; no alarm; the subject key `activity`.
        case activity
        /// The bundle and activity of the push record in `source`, the device given; no alarm; the
        /// subject key `push`.
        case push(deviceId: String?)
        case fields(Fields)
    }

    private final class Fields: Sendable {
        let deviceId: String?
        let bundleId: String?
        let activityId: String?
        let alarmId: String?
        let subjectKey: String

        init(deviceId: String?, bundleId: String?, activityId: String?, alarmId: String?, subjectKey: String) {
            self.deviceId = deviceId
            self.bundleId = bundleId
            self.activityId = activityId
            self.alarmId = alarmId
            self.subjectKey = subjectKey
        }
    }

    private var snapshot: ActivitySnapshot? {
        if case .activity(let snapshot) = source { snapshot } else { nil }
    }

    private var record: PushRecord? {
        if case .push(let record) = source { record } else { nil }
    }

    /// The record to log for the push this event reports: a `push.received` event carries it
    /// (see `EmulatorEffects.pushRecords`); nil for every other event.
    var loggedPushRecord: PushRecord? { type == .pushReceived ? record : nil }

    package init(
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
        self.extra = extra
        routing = .fields(
            Fields(
                deviceId: deviceId, bundleId: bundleId, activityId: activityId, alarmId: alarmId,
                subjectKey: subjectKey))
    }

    /// An event about the activity in `snapshot`, which is its subject and names its device,
    /// bundle and ID.
    init(type: RelayEventType, at: UnixSeconds, activity snapshot: ActivitySnapshot, extra: JSONObject = [:]) {
        self.seq = 0
        self.type = type
        self.at = at
        self.source = .activity(snapshot)
        self.extra = extra
        routing = .activity
    }

    /// An event about the push in `record`, which is its subject and names its bundle and
    /// activity; `deviceId` is the device it went to.
    init(type: RelayEventType, at: UnixSeconds, push record: PushRecord, deviceId: String?) {
        self.seq = 0
        self.type = type
        self.at = at
        self.source = .push(record)
        self.extra = [:]
        routing = .push(deviceId: deviceId)
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
    package var data: JSONValue {
        var members = extra
        members["seq"] = .int(Int64(clamping: seq))
        members["type"] = .string(type.rawValue)
        members["at"] = .number(at)
        if let deviceId { members["deviceId"] = .string(deviceId) }
        members[subjectKey] = subject
        return .object(members)
    }

    /// Whether a subscriber's filter lets this event through.
    package func matches(_ filter: EventFilter) -> Bool {
        if let wanted = filter.deviceId, wanted != deviceId { return false }
        if let wanted = filter.bundleId, wanted != bundleId { return false }
        if let wanted = filter.activityId, wanted != activityId { return false }
        if let wanted = filter.alarmId, wanted != alarmId { return false }
        if let types = filter.types, !types.contains(type) { return false }
        return true
    }
}

/// What a subscriber asked to see; nil members match everything.
package struct EventFilter: Sendable, Hashable {
    package var deviceId: String?
    package var bundleId: String?
    package var activityId: String?
    package var alarmId: String?
    package var types: Set<RelayEventType>?

    package init(
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
