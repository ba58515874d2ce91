import RelayJSON

extension PushRecord {
    /// The bytes of `json.serialized()`, written directly: every push writes its record to the
    /// push log (and its `push.received` event shares the bytes).
    func serializedJSON() -> [UInt8] {
        var writer = JSONObjectWriter(capacity: 512)
        // Keys in byte order, as `JSONValue.serialized()` writes them.
        writer.member("activityId", string: activityId)
        writer.member("apnsId", string: apnsId)
        writer.member("bundleId", string: bundleId)
        if let channelId { writer.member("channelId", string: channelId) }
        if let deviceName { writer.member("deviceName", string: deviceName) }
        if let fault { writer.member("fault", fault) }
        writer.member("headers") { storage in loggedHeaders.write(to: &storage) }
        writer.member("hint", string: hint)
        writer.member("outcome", string: outcome.rawValue)
        writer.member("payload") { storage in loggedPayload.write(to: &storage) }
        writer.member("reason", string: reason)
        writer.member("receivedAt", number: receivedAt)
        if let responseBody { writer.member("response", responseBody) }
        writer.member("status", integer: Int64(status))
        if channelId == nil { writer.member("token", string: token) }
        writer.member("uniqueId", string: uniqueId)
        return writer.finish()
    }
}
