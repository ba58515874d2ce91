/// Hints about a Live Activity payload itself; request-level hints are added by the validators.
extension LiveActivityPayload {
    /// Hints about likely sender mistakes in this payload (not the device-side `issues`).
    package var hints: [APNsHint] {
        // Checked one by one rather than over arrays of (key, value) pairs: this runs for every push,
        // and almost always finds nothing, so it should allocate nothing.
        var hints: [APNsHint] = []
        func milliseconds(_ key: String, _ value: Double?) {
            if let value, value > APNsHint.millisecondsThreshold {
                hints.append(.millisecondsTimestamp(key: key, value: value))
            }
        }
        milliseconds("timestamp", timestamp)
        milliseconds("stale-date", staleDate)
        milliseconds("dismissal-date", dismissalDate)
        if !otherAPSKeys.isEmpty { hints.append(.unknownAPSKeys(otherAPSKeys.keys.sorted())) }
        if !event.isStart {
            if attributesType != nil { hints.append(.startOnlyKey("attributes-type", event: event)) }
            if attributes != nil { hints.append(.startOnlyKey("attributes", event: event)) }
            if inputPushToken { hints.append(.startOnlyKey("input-push-token", event: event)) }
            if inputPushChannel != nil { hints.append(.startOnlyKey("input-push-channel", event: event)) }
        }
        if !event.isEnd, dismissalDate != nil { hints.append(.dismissalDateNotOnEnd(event: event)) }
        return hints
    }
}
