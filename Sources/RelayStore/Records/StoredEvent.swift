public import RelayCore

/// One entry of the durable event log behind the event stream.
public struct StoredEvent: Sendable, Equatable {
    /// The global sequence number (the SSE `id:`); strictly increasing across the log.
    public var seq: Int64
    /// The event type, e.g. `"activity.updated"`.
    public var type: String
    /// When it happened, on the relay's clock.
    public var at: UnixSeconds
    /// The device it concerns, if any.
    public var deviceId: String?
    /// The app it concerns, if any.
    public var bundleId: String?
    /// The activity it concerns, if any.
    public var activityId: String?
    /// The alarm it concerns, if any.
    public var alarmId: String?
    /// The event's JSON data, as sent on the stream.
    public var data: [UInt8]

    /// An event numbered `seq` of `type` at `at`, with its subjects and JSON `data`.
    public init(
        seq: Int64, type: String, at: UnixSeconds, deviceId: String? = nil, bundleId: String? = nil,
        activityId: String? = nil, alarmId: String? = nil, data: [UInt8]
    ) {
        self.seq = seq
        self.at = at
        self.type = type
        self.deviceId = deviceId
        self.bundleId = bundleId
        self.activityId = activityId
        self.alarmId = alarmId
        self.data = data
    }
}
