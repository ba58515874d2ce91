/// The `event` of a Live Activity push: `start`, `update` or `end`.
///
/// Open so that an unknown value round-trips into the push log; the emulated device ignores
/// events it does not know.
public struct LiveActivityEvent: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The value as sent.
    public let rawValue: String

    /// Wraps any value.
    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// Push-to-start (iOS 17.2+): starts a new activity.
    public static let start = LiveActivityEvent(rawValue: "start")
    /// Updates a running activity's content state.
    public static let update = LiveActivityEvent(rawValue: "update")
    /// Ends a running activity, optionally with a final content state and a dismissal date.
    public static let end = LiveActivityEvent(rawValue: "end")

    /// True for `start`, `update` and `end`.
    public var isKnown: Bool { self == .start || self == .update || self == .end }
}
