public import RelayCore

/// One entry of the durable event log behind the event stream.
public struct StoredEvent: Sendable, Equatable {
    /// The global sequence number (the SSE `id:`); strictly increasing across the log.
    public var seq: Int64
    /// The event type, e.g. `"activity.updated"`.
    public var type: String {
        get { members.value.type }
        set { members.value.type = newValue }
    }
    /// When it happened, on the relay's clock.
    public var at: UnixSeconds
    /// The device it concerns, if any.
    public var deviceId: String? {
        get { members.value.deviceId }
        set { members.value.deviceId = newValue }
    }
    /// The app it concerns, if any.
    public var bundleId: String? {
        get { members.value.bundleId }
        set { members.value.bundleId = newValue }
    }
    /// The activity it concerns, if any.
    public var activityId: String? {
        get { members.value.activityId }
        set { members.value.activityId = newValue }
    }
    /// The alarm it concerns, if any.
    public var alarmId: String? {
        get { members.value.alarmId }
        set { members.value.alarmId = newValue }
    }
    /// The event's JSON data, as sent on the stream.
    public var data: [UInt8] {
        get { members.value.data }
        set { members.value.data = newValue }
    }

    /// The members other than the numbers, behind one box (see `CopyOnWrite`): an event is copied
    /// into its batch, its commit and its fan-out, and each copy of five strings and its data cost a
    /// retain each.
    private var members: CopyOnWrite<Members>

    private struct Members: Sendable, Equatable {
        var type: String
        var deviceId: String?
        var bundleId: String?
        var activityId: String?
        var alarmId: String?
        var data: [UInt8]
    }

    /// An event numbered `seq` of `type` at `at`, with its subjects and JSON `data`.
    public init(
        seq: Int64, type: String, at: UnixSeconds, deviceId: String? = nil, bundleId: String? = nil,
        activityId: String? = nil, alarmId: String? = nil, data: [UInt8]
    ) {
        self.seq = seq
        self.at = at
        members = CopyOnWrite(
            Members(
                type: type, deviceId: deviceId, bundleId: bundleId, activityId: activityId, alarmId: alarmId, data: data
            ))
    }
}
