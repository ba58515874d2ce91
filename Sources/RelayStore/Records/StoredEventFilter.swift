/// Which events a read returns: every given field must match; nil fields match anything.
public struct StoredEventFilter: Sendable, Equatable {
    /// The most event types one filter may name, so a hostile query cannot build huge SQL.
    public static let maxTypes = 64

    /// Only events about this device.
    public var deviceId: String?
    /// Only events about this app.
    public var bundleId: String?
    /// Only events about this activity.
    public var activityId: String?
    /// Only events about this alarm.
    public var alarmId: String?
    /// Only events of these types (at most `maxTypes`); nil for every type.
    public var types: Set<String>?

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
