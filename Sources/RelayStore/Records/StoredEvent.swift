package import RelayCore

/// One entry of the durable event log behind the event stream.
public struct StoredEvent: Sendable, Equatable {
    /// The global sequence number (the SSE `id:`); strictly increasing across the log.
    package var seq: Int64
    /// The event type, e.g. `"activity.updated"`.
    package var type: String
    /// When it happened, on the relay's clock.
    package var at: UnixSeconds
    /// The device it concerns, if any.
    package var deviceId: String?
    /// The app it concerns, if any.
    package var bundleId: String?
    /// The activity it concerns, if any.
    package var activityId: String?
    /// The alarm it concerns, if any.
    package var alarmId: String?
    /// The event's JSON data, as sent on the stream.
    package var data: [UInt8]

    /// An event numbered `seq` of `type` at `at`, with its subjects and JSON `data`.
    package init(
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
