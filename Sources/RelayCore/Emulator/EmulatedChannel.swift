package import RelayJSON

/// An iOS 18 broadcast channel of one app (CHM in apns-facts.md).
public struct EmulatedChannel: Sendable, Hashable {
    /// Random base64 identifier, as APNs makes them.
    public let id: String
    package let bundleId: String
    /// 0: no message stored; 1: the most recent message is kept (for up to 8 hours).
    package let storagePolicy: Int
    package let createdAt: UnixSeconds
    /// The latest broadcast, kept under storage policy 1 for activities that join later.
    package var storedMessage: StoredBroadcast?

    package init(id: String, bundleId: String, storagePolicy: Int, createdAt: UnixSeconds) {
        self.id = id
        self.bundleId = bundleId
        self.storagePolicy = storagePolicy
        self.createdAt = createdAt
    }

    /// `{"message-storage-policy", "push-type"}` as the channel read API answers.
    package var apnsJSON: JSONValue {
        ["message-storage-policy": .int(Int64(storagePolicy)), "push-type": "LiveActivity"]
    }

    /// The channel as stored.
    package var json: JSONValue {
        [
            "id": .string(id), "bundleId": .string(bundleId), "storagePolicy": .int(Int64(storagePolicy)),
            "createdAt": .number(createdAt), "storedMessage": .optional(storedMessage?.json),
        ]
    }

    /// Restores a channel written by `json`.
    package static func fromJSON(_ json: JSONValue) throws(JSONFieldError) -> EmulatedChannel {
        let fields = try JSONFields(json)
        var channel = EmulatedChannel(
            id: try fields.requireString("id"), bundleId: try fields.requireString("bundleId"),
            storagePolicy: try fields.requireInteger("storagePolicy"), createdAt: try fields.requireNumber("createdAt"))
        if let stored = fields.value("storedMessage") {
            channel.storedMessage = try StoredBroadcast(json: stored, path: "storedMessage")
        }
        return channel
    }
}

/// A broadcast kept by a storage-policy-1 channel: the update it carried and until when it is kept.
package struct StoredBroadcast: Sendable, Hashable {
    /// `update` or `end`.
    package var event: String
    package var update: ActivityUpdate
    package var dismissalDate: UnixSeconds?
    package var receivedAt: UnixSeconds
    package var expiresAt: UnixSeconds

    package init(
        event: String, update: ActivityUpdate, dismissalDate: UnixSeconds?, receivedAt: UnixSeconds,
        expiresAt: UnixSeconds
    ) {
        self.event = event
        self.update = update
        self.dismissalDate = dismissalDate
        self.receivedAt = receivedAt
        self.expiresAt = expiresAt
    }

    package var json: JSONValue {
        [
            "event": .string(event), "update": update.json,
            "dismissalDate": .optional(dismissalDate.map(JSONValue.number)),
            "receivedAt": .number(receivedAt), "expiresAt": .number(expiresAt),
        ]
    }

    init(json: JSONValue, path: String) throws(JSONFieldError) {
        let fields = try JSONFields(json, path: path)
        event = try fields.requireString("event")
        update = try ActivityUpdate(json: try fields.require("update"), path: fields.keyPath("update"))
        dismissalDate = try fields.number("dismissalDate")
        receivedAt = try fields.requireNumber("receivedAt")
        expiresAt = try fields.requireNumber("expiresAt")
    }
}
