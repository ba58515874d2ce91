import RelayJSON

extension LiveActivity {
    /// The bytes of `json.serialized()`, written directly: an activity is serialized on every push
    /// (its document and its event share them), and building its 19-member object (and those of
    /// its counters and budget) to write them cost more than writing them. The members that never
    /// change (`FixedMembers`) were written once, when the activity began.
    func serializedJSON() -> [UInt8] {
        let fixed = fixedMembers
        var writer = JSONObjectWriter(capacity: 1024)
        // Keys in byte order, as `JSONValue.serialized()` writes them.
        writer.members(fixed.attributesToChannelId)
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
        writer.members(fixed.deviceId)
        writer.member("dismissAt", number: dismissAt)
        writer.member("endedAt", number: endedAt)
        writer.members(fixed.id)
        writer.member("lastTimestamp", number: lastTimestamp)
        writer.member("pendingUpdate", pendingUpdate?.json ?? .null)
        writer.member("pushToken", string: pushToken)
        writer.member("relevanceScore", number: relevanceScore)
        writer.member("staleDate", number: staleDate)
        writer.members(fixed.startedAt)
        writer.member("state", string: state.rawValue)
        writer.members(fixed.systemEndAt)
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

extension LiveActivity {
    /// The members of an activity's JSON that are fixed when it begins, each run written as
    /// `JSONObjectWriter` writes it (`"key":value` pairs joined by commas), for `serializedJSON`.
    struct FixedMembers: Sendable {
        /// `attributes`, `attributesType`, `bundleId`, `channelId`.
        let attributesToChannelId: [UInt8]
        let deviceId: [UInt8]
        let id: [UInt8]
        let startedAt: [UInt8]
        let systemEndAt: [UInt8]

        init(
            id: String, deviceId: String, bundleId: String, attributesType: String, attributes: JSONValue,
            channelId: String?, startedAt: UnixSeconds, systemEndAt: UnixSeconds
        ) {
            attributesToChannelId = Self.written { writer in
                writer.member("attributes", attributes)
                writer.member("attributesType", string: attributesType)
                writer.member("bundleId", string: bundleId)
                writer.member("channelId", string: channelId)
            }
            self.deviceId = Self.written { $0.member("deviceId", string: deviceId) }
            self.id = Self.written { $0.member("id", string: id) }
            self.startedAt = Self.written { $0.member("startedAt", number: startedAt) }
            self.systemEndAt = Self.written { $0.member("systemEndAt", number: systemEndAt) }
        }

        /// The members `write` writes, as `JSONObjectWriter.finishMembers()` gives them.
        private static func written(_ write: (inout JSONObjectWriter) -> Void) -> [UInt8] {
            var writer = JSONObjectWriter(capacity: 128)
            write(&writer)
            return writer.finishMembers()
        }
    }
}
