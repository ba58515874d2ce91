extension LiveActivity {
    /// The bytes of `json.serialized()`, written directly: an activity is serialized on every push
    /// (its document and its event share them), and building its 19-member dictionary to sort
    /// and write it cost more than writing it.
    func serializedJSON() -> [UInt8] {
        var writer = JSONObjectWriter(capacity: 1024)
        // Keys in byte order, as `JSONValue.serialized()` writes them.
        writer.member("attributes", attributes)
        writer.member("attributesType", string: attributesType)
        writer.member("bundleId", string: bundleId)
        writer.member("channelId", string: channelId)
        writer.member("contentState", contentState)
        writer.member("counters", counters.json)
        writer.member("deviceId", string: deviceId)
        writer.member("dismissAt", number: dismissAt)
        writer.member("endedAt", number: endedAt)
        writer.member("id", string: id)
        writer.member("lastTimestamp", number: lastTimestamp)
        writer.member("pendingUpdate", pendingUpdate?.json ?? .null)
        writer.member("pushToken", string: pushToken)
        writer.member("relevanceScore", number: relevanceScore)
        writer.member("staleDate", number: staleDate)
        writer.member("startedAt", number: startedAt)
        writer.member("state", string: state.rawValue)
        writer.member("systemEndAt", number: systemEndAt)
        writer.member("updateBudget", updateBudget.json)
        return writer.finish()
    }
}
