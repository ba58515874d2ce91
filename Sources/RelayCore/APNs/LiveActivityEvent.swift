/// The `event` of a Live Activity push: `start`, `update` or `end`.
///
/// Open so that an unknown value round-trips into the push log; the emulated device ignores
/// events it does not know.
package struct LiveActivityEvent: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The value as sent.
    package let rawValue: String
    /// Which of the known events this is, read once from `rawValue`: every push compares its
    /// event with `start` and `end`, and two known events compare as one byte each.
    private let kind: Kind

    private enum Kind: UInt8 {
        case start, update, end, other
    }

    /// Wraps any value.
    package init(rawValue: String) {
        self.rawValue = rawValue
        // By length first: two short strings that are equal compare in one step, unequal ones
        // through the standard library's general comparison.
        kind =
            switch rawValue.utf8.count {
            case 5 where rawValue == "start": .start
            case 6 where rawValue == "update": .update
            case 3 where rawValue == "end": .end
            default: .other
            }
    }

    package var description: String { rawValue }

    /// Push-to-start (iOS 17.2+): starts a new activity.
    package static let start = LiveActivityEvent(rawValue: "start")
    /// Updates a running activity's content state.
    package static let update = LiveActivityEvent(rawValue: "update")
    /// Ends a running activity, optionally with a final content state and a dismissal date.
    package static let end = LiveActivityEvent(rawValue: "end")

    /// True for `start`, `update` and `end`.
    package var isKnown: Bool { kind != .other }
    /// True for `start`, without reading the static `start` (a lazily made global).
    package var isStart: Bool { kind == .start }
    /// True for `end`, likewise.
    var isEnd: Bool { kind == .end }

    /// Equal when the values are: two known events by their kind, anything else by its text.
    package static func == (left: LiveActivityEvent, right: LiveActivityEvent) -> Bool {
        left.kind == right.kind && (left.kind != .other || left.rawValue == right.rawValue)
    }

    package func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}
