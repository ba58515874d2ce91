package import RelayJSON

/// A refusal the provider API sends back: Apple's reason and status, plus a human message for the
/// push log naming the offending value.
///
/// The wire body is only `{"reason": ...}` (and `"timestamp"` with 410), exactly as APNs sends it;
/// `message` never goes on the wire, it is what the relay shows in its push log and event stream.
public struct APNsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Apple's reason string.
    package var reason: APNsReason
    /// The HTTP status to answer with; Apple's pairing for `reason` unless overridden.
    package var status: Int
    /// For 410: when the token stopped being valid for the topic, in Unix seconds.
    package var timestamp: UnixSeconds?
    /// What exactly was wrong, for people reading the push log.
    package var message: String {
        get { note.text }
        set { note = .text(newValue) }
    }
    /// `message` as it is kept: written out when it is read.
    var note: PushNote

    /// An error with Apple's status for `reason`.
    package init(_ reason: APNsReason, _ message: String, timestamp: UnixSeconds? = nil) {
        self.init(reason, note: .text(message), timestamp: timestamp)
    }

    /// An error with Apple's status for `reason` whose message is `note`.
    init(_ reason: APNsReason, note: PushNote, timestamp: UnixSeconds? = nil) {
        self.reason = reason
        self.status = reason.status
        self.timestamp = timestamp
        self.note = note
    }

    /// Errors are equal when they answer and read the same, however their messages are kept.
    public static func == (left: APNsError, right: APNsError) -> Bool {
        left.reason == right.reason && left.status == right.status && left.timestamp == right.timestamp
            && left.message == right.message
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(reason)
        hasher.combine(status)
        hasher.combine(timestamp)
        hasher.combine(message)
    }

    /// The JSON body APNs sends: `{"reason": "..."}`, with `"timestamp"` in integer milliseconds
    /// since 1970 when the status is 410 and a timestamp is known.
    package var jsonBody: JSONValue {
        // Members in key order already, so the object is built without sorting.
        guard status == 410, let timestamp else {
            return .object(JSONObject(members: [("reason", .string(reason.rawValue))]))
        }
        return .object(
            JSONObject(members: [
                ("reason", .string(reason.rawValue)), ("timestamp", .int(Self.milliseconds(timestamp))),
            ]))
    }

    public var description: String { "\(status) \(reason.rawValue): \(message)" }

    /// Unix seconds to whole milliseconds, rounded down, clamped to a range JSON integers survive.
    static func milliseconds(_ seconds: UnixSeconds) -> Int64 {
        guard seconds.isFinite else { return 0 }
        let millis = (seconds * 1000).rounded(.down)
        return Int64(max(-9.0e15, min(9.0e15, millis)))
    }
}
