/// The type of an event on the stream (CONTRACT section 6). An open struct so that a
/// subscriber's `types=` filter and stored events of a later version round-trip.
public struct RelayEventType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    package init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    package static let activityStarted = RelayEventType("activity.started")
    package static let activityUpdated = RelayEventType("activity.updated")
    public static let activityStale = RelayEventType("activity.stale")
    public static let activityEnded = RelayEventType("activity.ended")
    public static let activityDismissed = RelayEventType("activity.dismissed")
    package static let activityPushToken = RelayEventType("activity.pushToken")
    package static let alarmUpdated = RelayEventType("alarm.updated")
    package static let alarmRemoved = RelayEventType("alarm.removed")
    public static let pushReceived = RelayEventType("push.received")
    public static let clock = RelayEventType("clock")
    /// A push or an app call changed a device's future: its widget timeline is stale.
    package static let timelineReload = RelayEventType("timeline.reload")
    /// Sent to a resuming subscriber that is further behind than the retained log.
    package static let snapshot = RelayEventType("snapshot")

    /// Every type the relay emits, in contract order.
    public static let all: [RelayEventType] = [
        .activityStarted, .activityUpdated, .activityStale, .activityEnded, .activityDismissed,
        .activityPushToken, .alarmUpdated, .alarmRemoved, .pushReceived, .clock, .timelineReload,
    ]
}
