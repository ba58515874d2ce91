/// Reading and writing the wire form. Every wire key (`content-state`, `stale-date`, ...) is
/// spelled once, in `Key`.
extension LiveActivityPayload {
    /// Wire keys of the payload and of its `aps` dictionary.
    private enum Key {
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
    public static func parse(_ json: JSONValue) -> Result<LiveActivityPayload, LiveActivityPayloadError> {
        guard case .object(var top) = json else {
            return .failure(
                LiveActivityPayloadError(path: "", "the payload must be a JSON object, not \(json.typeName)"))
        }
        guard let apsValue = top.removeValue(forKey: Key.aps), case .object(var aps) = apsValue else {
            return .failure(
                LiveActivityPayloadError(path: Key.aps, top.isEmpty ? "is missing" : "is missing or not an object"))
        }
        do throws(LiveActivityPayloadError) {
            guard let event = try string(&aps, Key.event) else {
                throw LiveActivityPayloadError(path: "aps.\(Key.event)", "is missing; send start, update or end")
            }
            var payload = LiveActivityPayload(event: LiveActivityEvent(rawValue: event), timestamp: nil)
            payload.timestamp = try number(&aps, Key.timestamp)
            payload.contentState = try object(&aps, Key.contentState)
            payload.staleDate = try number(&aps, Key.staleDate)
            payload.dismissalDate = try number(&aps, Key.dismissalDate)
            payload.relevanceScore = try number(&aps, Key.relevanceScore)
            if let alert = aps.removeValue(forKey: Key.alert), !alert.isNull {
                payload.alert = try LiveActivityAlert.parse(alert, path: "aps.\(Key.alert)").get()
            }
            payload.attributesType = try string(&aps, Key.attributesType)
            payload.attributes = try object(&aps, Key.attributes)
            payload.inputPushToken = try flag(&aps, Key.inputPushToken)
            payload.inputPushChannel = try string(&aps, Key.inputPushChannel)
            payload.otherAPSKeys = aps
            payload.customKeys = top
            return .success(payload)
        } catch {
            return .failure(error)
        }
    }

    /// The wire form: `{"aps": {...}, <custom keys>}`. Parsing it gives this payload back.
    public var jsonValue: JSONValue {
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

    // MARK: - Typed readers; each removes its key from `aps`

    private static func string(_ aps: inout [String: JSONValue], _ key: String) throws(LiveActivityPayloadError)
        -> String?
    {
        switch aps.removeValue(forKey: key) {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?: throw LiveActivityPayloadError(path: "aps.\(key)", "must be a string, not \(other.typeName)")
        }
    }

    private static func number(_ aps: inout [String: JSONValue], _ key: String) throws(LiveActivityPayloadError)
        -> Double?
    {
        switch aps.removeValue(forKey: key) {
        case nil, .null?: return nil
        case let value?:
            guard let number = value.doubleValue, number.isFinite else {
                throw LiveActivityPayloadError(path: "aps.\(key)", "must be a number, not \(value.typeName)")
            }
            return number
        }
    }

    private static func object(_ aps: inout [String: JSONValue], _ key: String) throws(LiveActivityPayloadError)
        -> [String: JSONValue]?
    {
        switch aps.removeValue(forKey: key) {
        case nil, .null?: return nil
        case .object(let members)?: return members
        case let other?: throw LiveActivityPayloadError(path: "aps.\(key)", "must be an object, not \(other.typeName)")
        }
    }

    /// Apple documents `1`; `0`, `true` and `false` are read as the flag they mean.
    private static func flag(_ aps: inout [String: JSONValue], _ key: String) throws(LiveActivityPayloadError) -> Bool {
        switch aps.removeValue(forKey: key) {
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
