package import RelayJSON

// MARK: - JSON

extension LiveActivity {
    /// The contract's activity shape (`id`, `deviceId`, `bundleId`, `attributesType`, `attributes`,
    /// `contentState`, `state`, `staleDate`, `relevanceScore`, `pushToken`, `channelId`, `startedAt`,
    /// `endedAt`, `dismissAt`, `lastTimestamp`; absent values as null) plus `systemEndAt`, `pendingUpdate`
    /// (the held update with `releaseAt` and `reason`, or null), `updateBudget` and `counters`.
    /// `fromJSON` reads it back in full, so the store keeps activities in this shape.
    package var json: JSONValue {
        .object([
            "id": .string(id),
            "deviceId": .string(deviceId),
            "bundleId": .string(bundleId),
            "attributesType": .string(attributesType),
            "attributes": attributes,
            "contentState": contentState,
            "state": .string(state.rawValue),
            "staleDate": .optional(staleDate.map(JSONValue.number)),
            "relevanceScore": .number(relevanceScore),
            "pushToken": .optional(pushToken.map(JSONValue.string)),
            "channelId": .optional(channelId.map(JSONValue.string)),
            "startedAt": .number(startedAt),
            "systemEndAt": .number(systemEndAt),
            "endedAt": .optional(endedAt.map(JSONValue.number)),
            "dismissAt": .optional(dismissAt.map(JSONValue.number)),
            "lastTimestamp": .number(lastTimestamp),
            "pendingUpdate": .optional(pendingUpdate?.json),
            "updateBudget": updateBudget.json,
            "counters": counters.json,
        ])
    }

    /// Restores an activity written by `json`, every field included. Errors name the offending key;
    /// unknown keys are ignored (later versions may add some). `endedAt` and `dismissAt` must be set
    /// exactly when the state is `ended` or `dismissed`.
    package static func fromJSON(_ json: JSONValue) throws(JSONFieldError) -> LiveActivity {
        let fields = try JSONFields(json)
        let stateText = try fields.requireString("state")
        guard let state = ActivityState(rawValue: stateText) else {
            throw fields.error("state", "must be active, stale, ended or dismissed")
        }
        let endedAt = try fields.number("endedAt")
        let dismissAt = try fields.number("dismissAt")
        if state.isOver {
            guard endedAt != nil else { throw fields.error("endedAt", "is required once the activity has ended") }
            guard dismissAt != nil else { throw fields.error("dismissAt", "is required once the activity has ended") }
        } else {
            guard endedAt == nil else { throw fields.error("endedAt", "must be null while the activity runs") }
            guard dismissAt == nil else { throw fields.error("dismissAt", "must be null while the activity runs") }
        }
        let pending: PendingUpdate?
        if let pendingJSON = fields.value("pendingUpdate") {
            pending = try PendingUpdate(json: pendingJSON, path: fields.keyPath("pendingUpdate"))
        } else {
            pending = nil
        }
        let counters: ActivityCounters
        if let countersJSON = fields.value("counters") {
            counters = try ActivityCounters(json: countersJSON, path: fields.keyPath("counters"))
        } else {
            counters = ActivityCounters()
        }
        return LiveActivity(
            id: try fields.requireString("id"), deviceId: try fields.requireString("deviceId"),
            bundleId: try fields.requireString("bundleId"), attributesType: try fields.requireString("attributesType"),
            attributes: try fields.require("attributes"), contentState: try fields.require("contentState"),
            state: state, staleDate: try fields.number("staleDate"),
            relevanceScore: try fields.number("relevanceScore") ?? 0, pushToken: try fields.string("pushToken"),
            channelId: try fields.string("channelId"), startedAt: try fields.requireNumber("startedAt"),
            systemEndAt: try fields.requireNumber("systemEndAt"), endedAt: endedAt, dismissAt: dismissAt,
            lastTimestamp: try fields.requireNumber("lastTimestamp"),
            updateBudget: try UpdateBudget(
                json: try fields.require("updateBudget"), path: fields.keyPath("updateBudget")),
            pendingUpdate: pending, counters: counters)
    }
}
