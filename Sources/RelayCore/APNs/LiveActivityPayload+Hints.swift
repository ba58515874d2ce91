/// Hints about a Live Activity payload itself; request-level hints are added by the validators.
extension LiveActivityPayload {
    /// Hints about likely sender mistakes in this payload (not the device-side `issues`).
    public var hints: [APNsHint] {
        var hints: [APNsHint] = []
        for (key, value) in [("timestamp", timestamp), ("stale-date", staleDate), ("dismissal-date", dismissalDate)] {
            if let value, value > APNsHint.millisecondsThreshold {
                hints.append(.millisecondsTimestamp(key: key, value: value))
            }
        }
        let unknown = otherAPSKeys.keys.sorted()
        if !unknown.isEmpty { hints.append(.unknownAPSKeys(unknown)) }
        if event != .start {
            for (key, present) in [
                ("attributes-type", attributesType != nil), ("attributes", attributes != nil),
                ("input-push-token", inputPushToken), ("input-push-channel", inputPushChannel != nil),
            ] where present {
                hints.append(.startOnlyKey(key, event: event))
            }
        }
        if event != .end, dismissalDate != nil { hints.append(.dismissalDateNotOnEnd(event: event)) }
        return hints
    }
}
