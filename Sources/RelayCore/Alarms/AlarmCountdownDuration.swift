package import RelayJSON

/// How long an alarm counts down, as AlarmKit's `Alarm.CountdownDuration`.
///
/// `preAlert` is the countdown before the alert (a timer's length, or how long before a scheduled
/// alert the countdown starts). `postAlert` is the countdown after the alarm alerted and the person
/// chose to count down again (snooze / repeat); when it is nil, `preAlert` is used instead.
package struct AlarmCountdownDuration: Sendable, Hashable {
    /// Seconds of countdown before the alert, or nil for none.
    package var preAlert: Double?
    /// Seconds of countdown after an alert (snooze / repeat), or nil to reuse `preAlert`.
    package var postAlert: Double?

    /// A countdown duration; both parts are optional as in AlarmKit.
    package init(preAlert: Double?, postAlert: Double?) {
        self.preAlert = preAlert
        self.postAlert = postAlert
    }

    /// The length of a post-alert countdown: `postAlert`, else `preAlert`, else nil (no snooze).
    package var snoozeDuration: Double? { postAlert ?? preAlert }

    /// Fails unless each present part is a positive, finite number of seconds within the limit.
    func validate() throws(AlarmError) {
        try Self.check(preAlert, at: "countdownDuration.preAlert")
        try Self.check(postAlert, at: "countdownDuration.postAlert")
    }

    private static func check(_ seconds: Double?, at path: String) throws(AlarmError) {
        guard let seconds else { return }
        guard seconds.isFinite, seconds > 0, seconds <= AlarmLimits.maximumDuration else {
            throw AlarmError.invalidField(
                path: path,
                message:
                    "must be a positive number of seconds at most \(Int(AlarmLimits.maximumDuration)) (got \(seconds))"
            )
        }
    }
}

// MARK: - JSON

extension AlarmCountdownDuration {
    /// `{"preAlert": seconds | null, "postAlert": seconds | null}`.
    package var json: JSONValue {
        [
            "preAlert": .optional(preAlert.map(JSONValue.number)),
            "postAlert": .optional(postAlert.map(JSONValue.number)),
        ]
    }

    /// Parses and validates `{preAlert?, postAlert?}`; errors name paths under `countdownDuration`.
    package init(json: JSONValue) throws(AlarmError) {
        let path = "countdownDuration"
        let members = try AlarmJSON.object(json, at: path)
        let preAlert = try AlarmJSON.member(members, "preAlert").map { value throws(AlarmError) in
            try AlarmJSON.number(value, at: AlarmJSON.path(path, "preAlert"))
        }
        let postAlert = try AlarmJSON.member(members, "postAlert").map { value throws(AlarmError) in
            try AlarmJSON.number(value, at: AlarmJSON.path(path, "postAlert"))
        }
        self.init(preAlert: preAlert, postAlert: postAlert)
        try validate()
    }
}
