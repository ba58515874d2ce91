/// Which events a read returns: every given field must match; nil fields match anything.
public struct StoredEventFilter: Sendable, Equatable {
    /// The most event types one filter may name, so a hostile query cannot build huge SQL.
    package static let maxTypes = 64

    /// Only events about this device.
    package var deviceId: String?
    /// Only events about this app.
    package var bundleId: String?
    /// Only events about this activity.
    package var activityId: String?
    /// Only events about this alarm.
    package var alarmId: String?
    /// Only events of these types (at most `maxTypes`); nil for every type.
    package var types: Set<String>?

    /// A filter matching the given fields; with no arguments, every event.
    public init(
        deviceId: String? = nil, bundleId: String? = nil, activityId: String? = nil, alarmId: String? = nil,
        types: Set<String>? = nil
    ) {
        self.deviceId = deviceId
        self.bundleId = bundleId
        self.activityId = activityId
        self.alarmId = alarmId
        self.types = types
    }

    /// Matches every event.
    public static let all = StoredEventFilter()
}
