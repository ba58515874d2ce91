package import RelayJSON

/// Reading and writing the wire form. Every wire key (`content-state`, `stale-date`, ...) is
/// spelled once, in `Key`.
extension LiveActivityPayload {
    /// Wire keys of the payload and of its `aps` dictionary.
    enum Key {
        static let aps = "aps"
        static let timestamp = "timestamp"
        static let event = "event"
        static let contentState = "content-state"
        static let staleDate = "stale-date"
        static let dismissalDate = "dismissal-date"
        static let relevanceScore = "relevance-score"
        static let alert = "alert"
        static let attributesType = "attributes-type"
        static let attributes = "attributes"
        static let inputPushToken = "input-push-token"
        static let inputPushChannel = "input-push-channel"
    }

    /// Reads a parsed body. Fails, naming the offending value, when the body is not a Live
    /// Activity payload at all (see the type's documentation for the split between refusals and
    /// device-side issues).
    package static func parse(_ json: JSONValue) -> Result<LiveActivityPayload, LiveActivityPayloadError> {
        guard case .object(let top) = json else {
            return .failure(
                LiveActivityPayloadError(path: "", "the payload must be a JSON object, not \(json.typeName)"))
        }
        // Read in place: the caller usually keeps `json` (for the push log), so removing keys from
        // these dictionaries would copy them.
        let apsValue = top[Key.aps]
        guard let apsValue, case .object(let apsMembers) = apsValue else {
            let othersEmpty = top.count == (apsValue == nil ? 0 : 1)
            return .failure(
                LiveActivityPayloadError(path: Key.aps, othersEmpty ? "is missing" : "is missing or not an object"))
        }
        var custom: JSONObject?
        if top.count > 1 {
            var others = top
            others[Key.aps] = nil
            custom = others
        }
        return payload(from: APSReader(members: apsMembers), customKeys: custom)
    }

    /// The typed payload from `aps` sorted into its keys, and the members beside `aps`.
    static func payload(from aps: APSReader, customKeys: JSONObject?) -> Result<
        LiveActivityPayload, LiveActivityPayloadError
    > {
        do throws(LiveActivityPayloadError) {
            guard let event = try aps.string(aps.event, Key.event) else {
                throw LiveActivityPayloadError(path: "aps.\(Key.event)", "is missing; send start, update or end")
            }
            // Read in the order of the keys' checks, then built at once: each setter of the
            // stored members checks that their box is unique.
            let timestamp = try aps.number(aps.timestamp, Key.timestamp)
            let contentState = try aps.object(aps.contentState, Key.contentState)
            let staleDate = try aps.number(aps.staleDate, Key.staleDate)
            let dismissalDate = try aps.number(aps.dismissalDate, Key.dismissalDate)
            let relevanceScore = try aps.number(aps.relevanceScore, Key.relevanceScore)
            var alert: LiveActivityAlert?
            if let value = aps.alert, !value.isNull {
                alert = try LiveActivityAlert.parse(value, path: "aps.\(Key.alert)").get()
            }
            return .success(
                LiveActivityPayload(
                    event: LiveActivityEvent(rawValue: event), timestamp: timestamp, contentState: contentState,
                    staleDate: staleDate, dismissalDate: dismissalDate, relevanceScore: relevanceScore, alert: alert,
                    attributesType: try aps.string(aps.attributesType, Key.attributesType),
                    attributes: try aps.object(aps.attributes, Key.attributes),
                    inputPushToken: try aps.flag(aps.inputPushToken, Key.inputPushToken),
                    inputPushChannel: try aps.string(aps.inputPushChannel, Key.inputPushChannel),
                    otherAPSKeys: aps.others, customKeys: customKeys ?? [:]))
        } catch {
            return .failure(error)
        }
    }

    /// The wire form: `{"aps": {...}, <custom keys>}`. Parsing it gives this payload back.
    package var jsonValue: JSONValue {
        var aps = otherAPSKeys
        aps[Key.event] = .string(event.rawValue)
        if let timestamp { aps[Key.timestamp] = .number(timestamp) }
        if let contentState { aps[Key.contentState] = .object(contentState) }
        if let staleDate { aps[Key.staleDate] = .number(staleDate) }
        if let dismissalDate { aps[Key.dismissalDate] = .number(dismissalDate) }
        if let relevanceScore { aps[Key.relevanceScore] = .number(relevanceScore) }
        if let alert { aps[Key.alert] = alert.json }
        if let attributesType { aps[Key.attributesType] = .string(attributesType) }
        if let attributes { aps[Key.attributes] = .object(attributes) }
        if inputPushToken { aps[Key.inputPushToken] = .int(1) }
        if let inputPushChannel { aps[Key.inputPushChannel] = .string(inputPushChannel) }
        var top = customKeys
        top[Key.aps] = .object(aps)
        return .object(top)
    }

    /// The `aps` dictionary sorted into its ActivityKit keys and the rest, in one pass over its
    /// members (a lookup per key would search for eleven keys for the five a push carries).
    struct APSReader {
        var event: JSONValue?
        var timestamp: JSONValue?
        var contentState: JSONValue?
        var staleDate: JSONValue?
        var dismissalDate: JSONValue?
        var relevanceScore: JSONValue?
        var alert: JSONValue?
        var attributesType: JSONValue?
        var attributes: JSONValue?
        var inputPushToken: JSONValue?
        var inputPushChannel: JSONValue?
        /// Members that are not ActivityKit keys.
        var others: JSONObject = [:]

        /// The ActivityKit keys, in the order `set(_:at:)` numbers them.
        static let keys = ASCIIKeySet([
            Key.event, Key.timestamp, Key.contentState, Key.staleDate, Key.dismissalDate, Key.relevanceScore,
            Key.alert, Key.attributesType, Key.attributes, Key.inputPushToken, Key.inputPushChannel,
        ])

        /// No members yet.
        init() {}

        init(members: JSONObject) {
            for (key, value) in members {
                if let position = Self.keys.index(of: key) {
                    set(value, at: position)
                } else {
                    others[key] = value
                }
            }
        }

        /// Sets the ActivityKit key at `position` in `keys`. Takes the value, so that a reader's
        /// last use moves it in rather than copying it.
        mutating func set(_ value: consuming JSONValue, at position: Int) {
            switch position {
            case 0: event = value
            case 1: timestamp = value
            case 2: contentState = value
            case 3: staleDate = value
            case 4: dismissalDate = value
            case 5: relevanceScore = value
            case 6: alert = value
            case 7: attributesType = value
            case 8: attributes = value
            case 9: inputPushToken = value
            default: inputPushChannel = value
            }
        }

        func string(_ value: JSONValue?, _ key: String) throws(LiveActivityPayloadError) -> String? {
            switch value {
            case nil, .null?: return nil
            case .string(let text)?: return text
            case let other?:
                throw LiveActivityPayloadError(path: "aps.\(key)", "must be a string, not \(other.typeName)")
            }
        }

        func number(_ value: JSONValue?, _ key: String) throws(LiveActivityPayloadError) -> Double? {
            switch value {
            case nil, .null?: return nil
            case let value?:
                guard let number = value.doubleValue, number.isFinite else {
                    throw LiveActivityPayloadError(path: "aps.\(key)", "must be a number, not \(value.typeName)")
                }
                return number
            }
        }

        func object(_ value: JSONValue?, _ key: String) throws(LiveActivityPayloadError) -> JSONObject? {
            switch value {
            case nil, .null?: return nil
            case .object(let members)?: return members
            case let other?:
                throw LiveActivityPayloadError(path: "aps.\(key)", "must be an object, not \(other.typeName)")
            }
        }

        /// Apple documents `1`; `0`, `true` and `false` are read as the flag they mean.
        func flag(_ value: JSONValue?, _ key: String) throws(LiveActivityPayloadError) -> Bool {
            switch value {
            case nil, .null?: return false
            case .bool(let flag)?: return flag
            case let value?:
                switch value.int64Value {
                case 1?: return true
                case 0?: return false
                default: throw LiveActivityPayloadError(path: "aps.\(key)", "must be 1")
                }
            }
        }
    }
}
