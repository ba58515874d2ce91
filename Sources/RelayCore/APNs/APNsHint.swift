/// Human advice attached to a push where the sending backend has likely made a mistake that APNs
/// would not report (the push log's `hint`). Every hint rests on a rule in `apns-facts.md`.
package struct APNsHint: Sendable, Hashable, CustomStringConvertible {
    /// A stable name, e.g. `timestampInMilliseconds`.
    package var code: String
    /// The advice.
    package var message: String

    /// A hint.
    package init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }

    /// The hint as a line of a push's record.
    var note: PushNote { .text(message) }

    /// Values above this are taken to be milliseconds: 1e11 seconds is the year 5138, while 1e11
    /// milliseconds is 1973.
    package static let millisecondsThreshold: Double = 1e11

    /// The topic lacks `.push-type.liveactivity` (APNs refuses it; this explains the fix).
    package static func topicWithoutLiveActivitySuffix(_ topic: String) -> APNsHint {
        APNsHint(
            code: "topicWithoutLiveActivitySuffix",
            message: "apns-topic \(APNsASCII.quoted(topic)) lacks '\(APNsTopic.liveActivitySuffix)'; Live Activity "
                + "pushes go to \(APNsASCII.quoted(topic + APNsTopic.liveActivitySuffix))")
    }

    /// `apns-push-type` was omitted; accepted as `liveactivity` from the topic.
    package static let pushTypeMissing = APNsHint(
        code: "pushTypeMissing",
        message: "apns-push-type is missing; Apple recommends 'liveactivity' on iOS and requires it on watchOS, "
            + "and a missing type may delay or drop pushes")

    /// A date key holds what looks like milliseconds.
    package static func millisecondsTimestamp(key: String, value: Double) -> APNsHint {
        APNsHint(
            code: "timestampInMilliseconds",
            message: "aps.\(key) is \(value.plainText), which looks like milliseconds; "
                + "Live Activity dates are Unix seconds")
    }

    /// The content state changed shape since the previous one the activity applied.
    package static func contentStateShapeChanged(_ differences: [String]) -> APNsHint {
        APNsHint(
            code: "contentStateShapeChanged",
            message: "content-state differs in shape from the previous state (the app may fail to decode it): "
                + differences.joined(separator: "; "))
    }

    /// `apns-id` has uppercase hex digits.
    package static let messageIDUppercase = APNsHint(
        code: "messageIDUppercase",
        message: "apns-id has uppercase hex digits; Apple documents the lowercase form (the relay echoes it as sent)")

    /// `apns-priority: 1` on a Live Activity push.
    package static let priorityOneOnLiveActivity = APNsHint(
        code: "priorityOneOnLiveActivity",
        message: "apns-priority 1 never wakes the device; Apple's Live Activity guide uses 5 (no budget) or 10")

    /// Keys inside `aps` that ActivityKit does not read.
    package static func unknownAPSKeys(_ keys: [String]) -> APNsHint {
        APNsHint(
            code: "unknownAPSKeys",
            message: "aps keys \(keys.map { "'\($0)'" }.joined(separator: ", ")) are not Live Activity keys and are "
                + "ignored (custom data goes beside aps; ActivityKit keys are kebab-case, e.g. content-state)")
    }

    /// A start-only key on another event.
    package static func startOnlyKey(_ key: String, event: LiveActivityEvent) -> APNsHint {
        APNsHint(code: "startOnlyKey", message: "aps.\(key) only has an effect on start, not on \(event.rawValue)")
    }

    /// `dismissal-date` on an event other than `end`.
    package static func dismissalDateNotOnEnd(event: LiveActivityEvent) -> APNsHint {
        APNsHint(
            code: "dismissalDateNotOnEnd",
            message: "aps.dismissal-date only has an effect on end, not on \(event.rawValue)")
    }
}
