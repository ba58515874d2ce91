extension LiveActivity {
    /// The bytes of `json.serialized()`, written directly: an activity is serialized on every push
    /// (its document and its event share them), and building its 19-member object (and those of
    /// its counters and budget) to write them cost more than writing them.
    func serializedJSON() -> [UInt8] {
        var writer = JSONObjectWriter(capacity: 1024)
        // Keys in byte order, as `JSONValue.serialized()` writes them.
        writer.member("attributes", attributes)
        writer.member("attributesType", string: attributesType)
        writer.member("bundleId", string: bundleId)
        writer.member("channelId", string: channelId)
        writer.member("contentState", contentState)
        writer.beginObject("counters")
        writer.member("applied", integer: Int64(counters.applied))
        writer.member("coalesced", integer: Int64(counters.coalesced))
        writer.member("deferred", integer: Int64(counters.deferred))
        writer.member("discarded", integer: Int64(counters.discarded))
        writer.member("ignoredStale", integer: Int64(counters.ignoredStale))
        writer.member("refusedOverBudget", integer: Int64(counters.refusedOverBudget))
        writer.member("rejected", integer: Int64(counters.rejected))
        writer.endObject()
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
        writer.beginObject("updateBudget")
        writer.member("capacity", integer: Int64(updateBudget.bucket.capacity))
        writer.member("frequentPushesEnabled", bool: updateBudget.frequentPushesEnabled)
        writer.member("refillPerSecond", number: updateBudget.bucket.refillPerSecond)
        writer.member("tokens", number: updateBudget.bucket.tokens)
        writer.member("updatedAt", number: updateBudget.bucket.updatedAt)
        writer.endObject()
        return writer.finish()
    }
}
