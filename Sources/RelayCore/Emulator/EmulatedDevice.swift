package import RelayJSON

/// What the emulated person chose for one app in Settings (CONTRACT section 5).
public struct AppSettings: Sendable, Hashable {
    /// Settings › App › Live Activities.
    package var liveActivitiesEnabled: Bool
    /// Settings › App › Live Activities › More Frequent Updates.
    package var frequentPushesEnabled: Bool
    /// How the person answers AlarmKit's authorization prompt.
    package var alarmAuthorization: AlarmAuthorization

    package init(
        liveActivitiesEnabled: Bool = true, frequentPushesEnabled: Bool = false,
        alarmAuthorization: AlarmAuthorization = .notDetermined
    ) {
        self.liveActivitiesEnabled = liveActivitiesEnabled
        self.frequentPushesEnabled = frequentPushesEnabled
        self.alarmAuthorization = alarmAuthorization
    }

    /// `{"liveActivitiesEnabled", "frequentPushesEnabled", "alarmAuthorization"}`.
    package var json: JSONValue {
        [
            "liveActivitiesEnabled": .bool(liveActivitiesEnabled),
            "frequentPushesEnabled": .bool(frequentPushesEnabled),
            "alarmAuthorization": .string(alarmAuthorization.rawValue),
        ]
    }

    /// Applies the members present in `body` to these settings; unknown members and wrong types
    /// are errors naming the member.
    package mutating func merge(_ body: JSONValue) throws(JSONFieldError) {
        let fields = try JSONFields(body)
        try fields.rejectUnknown(["liveActivitiesEnabled", "frequentPushesEnabled", "alarmAuthorization"])
        for (key, value) in fields.members.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "liveActivitiesEnabled":
                guard let flag = value.boolValue else { throw fields.error(key, "must be a boolean") }
                liveActivitiesEnabled = flag
            case "frequentPushesEnabled":
                guard let flag = value.boolValue else { throw fields.error(key, "must be a boolean") }
                frequentPushesEnabled = flag
            default:
                guard let text = value.stringValue, let answer = AlarmAuthorization(rawValue: text) else {
                    throw fields.error(key, "must be \"notDetermined\", \"authorized\" or \"denied\"")
                }
                alarmAuthorization = answer
            }
        }
    }

    /// Settings restored from `json`; missing members keep their defaults.
    package static func fromJSON(_ json: JSONValue) throws(JSONFieldError) -> AppSettings {
        var settings = AppSettings()
        try settings.merge(json)
        return settings
    }
}

/// The person's answer to AlarmKit's prompt. `notDetermined` means the person has not been
/// asked yet; the emulated person then allows on the first schedule, as the prompt appears.
package enum AlarmAuthorization: String, Sendable, Hashable, CaseIterable {
    case notDetermined
    case authorized
    case denied
}

/// A push-to-start token issued for one attributes type of one app on one device.
public struct PushToStartToken: Sendable, Hashable {
    public var token: String
    package var deviceId: String
    package var bundleId: String
    package var attributesType: String
    package var issuedAt: UnixSeconds

    package init(token: String, deviceId: String, bundleId: String, attributesType: String, issuedAt: UnixSeconds) {
        self.token = token
        self.deviceId = deviceId
        self.bundleId = bundleId
        self.attributesType = attributesType
        self.issuedAt = issuedAt
    }

    package var json: JSONValue {
        [
            "token": .string(token), "deviceId": .string(deviceId), "bundleId": .string(bundleId),
            "attributesType": .string(attributesType), "issuedAt": .number(issuedAt),
        ]
    }
}
