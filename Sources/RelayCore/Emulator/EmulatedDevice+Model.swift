package import RelayJSON

/// One emulated phone: the apps' settings, the push-to-start tokens the apps asked for and the
/// push-to-start budget per app.
public struct EmulatedDevice: Sendable, Hashable {
    public let id: String
    package let createdAt: UnixSeconds
    /// Hash of the device's API key (the key itself is never kept).
    package let keyHash: String
    /// Settings per bundle ID; an app without an entry has the defaults.
    package var apps: [String: AppSettings]
    /// Push-to-start tokens, one per (bundle ID, attributes type).
    package var pushToStartTokens: [PushToStartToken]
    /// Push-to-start budget per bundle ID.
    package var pushToStartBudgets: [String: PushToStartBudget]
    /// What the person calls the phone ("Ana's iPhone"), if given (see `DeviceLabel`).
    package var name: String?
    /// The phone's model ("iPhone 16 Pro"), if given (see `DeviceLabel`).
    package var model: String?

    package init(id: String, createdAt: UnixSeconds, keyHash: String, name: String? = nil, model: String? = nil) {
        self.id = id
        self.createdAt = createdAt
        self.keyHash = keyHash
        self.name = name
        self.model = model
        apps = [:]
        pushToStartTokens = []
        pushToStartBudgets = [:]
    }

    /// The settings of `bundleId` (defaults when never set).
    package func settings(_ bundleId: String) -> AppSettings { apps[bundleId] ?? AppSettings() }

    /// The device in its API shape: the key hash is left out; the push-to-start budgets (per
    /// bundle ID, as of their last draw) are in, for renderers to show them draining.
    package var json: JSONValue {
        [
            "id": .string(id), "deviceId": .string(id), "createdAt": .number(createdAt),
            "apps": .object(JSONObject(apps.mapValues(\.json))),
            "pushToStartTokens": .array(pushToStartTokens.map(\.json)),
            "pushToStartBudgets": .object(JSONObject(pushToStartBudgets.mapValues(\.json))),
            "name": .optional(name.map(JSONValue.string)), "model": .optional(model.map(JSONValue.string)),
        ]
    }

    /// The device as stored: the API shape plus the key hash.
    package var storedJSON: JSONValue {
        guard case .object(var members) = json else { return json }
        members["keyHash"] = .string(keyHash)
        return .object(members)
    }

    /// Restores a device written by `storedJSON`.
    package static func fromJSON(_ json: JSONValue) throws(JSONFieldError) -> EmulatedDevice {
        let fields = try JSONFields(json)
        var device = EmulatedDevice(
            id: try fields.requireString("id"), createdAt: try fields.requireNumber("createdAt"),
            keyHash: try fields.requireString("keyHash"), name: try fields.string("name"),
            model: try fields.string("model"))
        if let apps = fields.value("apps") {
            let appFields = try JSONFields(apps, path: "apps")
            for (bundleId, value) in appFields.members {
                do {
                    device.apps[bundleId] = try AppSettings.fromJSON(value)
                } catch {
                    throw JSONFieldError(
                        key: "apps.\(bundleId).\(error.key)", found: error.found, message: error.message)
                }
            }
        }
        for (index, value) in (fields.value("pushToStartTokens")?.arrayValue ?? []).enumerated() {
            let token = try JSONFields(value, path: "pushToStartTokens[\(index)]")
            device.pushToStartTokens.append(
                PushToStartToken(
                    token: try token.requireString("token"), deviceId: device.id,
                    bundleId: try token.requireString("bundleId"),
                    attributesType: try token.requireString("attributesType"),
                    issuedAt: try token.requireNumber("issuedAt")))
        }
        if let budgets = fields.value("pushToStartBudgets") {
            let budgetFields = try JSONFields(budgets, path: "pushToStartBudgets")
            for (bundleId, value) in budgetFields.members {
                device.pushToStartBudgets[bundleId] = try PushToStartBudget(
                    json: value, path: budgetFields.keyPath(bundleId))
            }
        }
        return device
    }
}
