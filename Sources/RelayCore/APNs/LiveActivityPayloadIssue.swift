/// Something in an accepted Live Activity payload that the emulated device will not apply as the
/// sender probably meant: APNs answers `200`, then iOS drops or ignores the push.
///
/// The emulated device records `dropsPush` issues as the push's outcome (`dropped`, with the
/// message as the hint); the others are notes for the push log.
package struct LiveActivityPayloadIssue: Sendable, Hashable, CustomStringConvertible {
    /// A stable name for the issue, e.g. `startWithoutAlert`.
    package var code: String
    /// What happens on the device and how to fix the payload.
    package var message: String
    /// True when the device discards the push because of it.
    package var dropsPush: Bool

    /// An issue.
    package init(code: String, message: String, dropsPush: Bool) {
        self.code = code
        self.message = message
        self.dropsPush = dropsPush
    }

    package var description: String { "\(code): \(message)" }
}

extension LiveActivityPayload {
    /// The device-side problems of this payload, most serious first.
    ///
    /// - `start` needs `alert` (Apple: "must include"; CONTRACT: "dropped because a start carried
    ///   no alert"), `attributes-type`, `attributes` and `content-state`.
    /// - `update` needs `content-state`: there is nothing else for the app to decode.
    /// - `end` without `content-state` is applied with the last state; Apple asks for the final
    ///   state, so it is noted, not dropped.
    /// - No `timestamp`: the system cannot order the push against others and drops it (Apple lists
    ///   `timestamp` as required; the exact device behaviour is undocumented).
    /// - An unknown `event` is ignored.
    package var issues: [LiveActivityPayloadIssue] {
        var issues: [LiveActivityPayloadIssue] = []
        guard event.isKnown else {
            issues.append(
                LiveActivityPayloadIssue(
                    code: "unknownEvent",
                    message: "event '\(event.rawValue)' is not start, update or end; the device ignores the push",
                    dropsPush: true))
            return issues
        }
        if event.isStart {
            if alert == nil {
                issues.append(
                    LiveActivityPayloadIssue(
                        code: "startWithoutAlert",
                        message: "a start must carry an alert; the device does not start the activity", dropsPush: true)
                )
            }
            if attributesType == nil {
                issues.append(
                    LiveActivityPayloadIssue(
                        code: "startWithoutAttributesType",
                        message: "a start needs attributes-type (the ActivityAttributes struct name)", dropsPush: true))
            }
            if attributes == nil {
                issues.append(
                    LiveActivityPayloadIssue(
                        code: "startWithoutAttributes", message: "a start needs attributes (the static data)",
                        dropsPush: true))
            }
        }
        if contentState == nil {
            if event.isEnd {
                issues.append(
                    LiveActivityPayloadIssue(
                        code: "endWithoutContentState",
                        message: "end carries no content-state; the activity ends showing its last state "
                            + "(Apple asks for the final state)",
                        dropsPush: false))
            } else {
                issues.append(
                    LiveActivityPayloadIssue(
                        code: "missingContentState",
                        message: "\(event.rawValue) carries no content-state; the app has nothing to decode",
                        dropsPush: true))
            }
        }
        if timestamp == nil {
            issues.append(
                LiveActivityPayloadIssue(
                    code: "missingTimestamp",
                    message: "aps.timestamp is missing; Live Activity pushes need the time the data was generated",
                    dropsPush: true))
        }
        return issues
    }

    /// The first issue that makes the device drop the push, if any.
    package var droppingIssue: LiveActivityPayloadIssue? { issues.first { $0.dropsPush } }
}
