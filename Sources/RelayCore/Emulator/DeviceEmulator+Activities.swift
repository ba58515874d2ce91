public import RelayJSON

// MARK: - Activities from the app (ActivityKit's request, update and end)

extension DeviceEmulator {
    /// `Activity.request(attributes:content:pushType:)`: starts an activity from the body of
    /// `POST /v1/activities`. With `pushType: "token"` the activity gets an update push token
    /// (published as `activity.pushToken`); with `{"channel": id}` it subscribes to a broadcast
    /// channel of its app and receives that channel's stored message, if any.
    public mutating func startActivity(body: JSONValue, at time: UnixSeconds) throws(EmulatorError) -> LiveActivity {
        let request: StartRequest
        do {
            request = try StartRequest(json: body)
        } catch {
            throw .invalid(error)
        }
        try BundleID.validate(request.bundleId)
        let device = try device(request.deviceId)
        let settings = device.settings(request.bundleId)
        guard settings.liveActivitiesEnabled else {
            throw .forbidden(
                "liveActivitiesDisabled",
                "Live Activities are turned off for \(request.bundleId) on device \(request.deviceId)")
        }
        if let channelId = request.channelId {
            guard let channel = channels[channelId], channel.bundleId == request.bundleId else {
                throw .invalid("pushType.channel '\(channelId)' is not a channel of \(request.bundleId)")
            }
        }
        let now = arrive(at: time)
        return try begin(
            deviceId: request.deviceId, bundleId: request.bundleId, attributesType: request.attributesType,
            attributes: request.attributes, content: request.content, wantsToken: request.wantsToken,
            channelId: request.channelId, settings: settings, at: now, cause: "app")
    }

    /// Starts an activity (from the app or a push-to-start) and records it.
    mutating func begin(
        deviceId: String, bundleId: String, attributesType: String, attributes: JSONValue, content: ActivityUpdate,
        wantsToken: Bool, channelId: String?, settings: AppSettings, at now: UnixSeconds, cause: String
    ) throws(EmulatorError) -> LiveActivity {
        var activity: LiveActivity
        do {
            activity = try LiveActivity.start(
                id: ids.uuid(), deviceId: deviceId, bundleId: bundleId, attributesType: attributesType,
                attributes: attributes, contentState: content.contentState, staleDate: content.staleDate,
                relevanceScore: content.relevanceScore, pushToken: nil, channelId: channelId,
                timestamp: content.timestamp, frequentPushesEnabled: settings.frequentPushesEnabled, rules: rules,
                at: now)
        } catch {
            throw .from(error)
        }
        emit(.activityStarted, activity: save(activity), at: now, extra: ["cause": .string(cause)])
        if wantsToken {
            let token = ids.hexToken(byteCount: 40)
            activity.pushToken = token
            let snapshot = save(activity)
            if let position = activities.position(of: activity.id) {
                tokens[TokenKey(token)] = TokenEntry(.activity(position), rules: rules, at: now)
            }
            emit(.activityPushToken, activity: snapshot, at: now)
        }
        if let channelId, var stored = channels[channelId]?.storedMessage, stored.expiresAt > now {
            // The stored message is the channel's latest state at join time: it applies even though
            // it was sent before this activity existed.
            stored.update.timestamp = nil
            applyBroadcast(stored, to: &activity, priority: 10, at: now)
        }
        return activity
    }

    /// `activity.update(_:)` from the app, with the body of `POST /v1/activities/{id}/update`.
    /// Updates after the end are `409`; an older `timestamp` is ignored (answered with the
    /// activity unchanged and `ignored: true`).
    package mutating func updateActivity(
        id: String, body: JSONValue, at time: UnixSeconds
    ) throws(EmulatorError) -> (activity: LiveActivity, outcome: ActivityUpdateOutcome) {
        let update: ActivityUpdate
        do {
            update = try ActivityUpdate(json: body)
        } catch {
            throw .invalid(error)
        }
        guard activities[id] != nil else { throw .notFound("activity", id) }
        let now = arrive(at: time)
        guard var activity = activities[id] else { throw .notFound("activity", id) }
        let settings = devices[activity.deviceId]?.settings(activity.bundleId) ?? AppSettings()
        let outcome = activity.update(
            update, source: .app, frequentPushesEnabled: settings.frequentPushesEnabled, rules: rules, at: now)
        switch outcome {
        case .rejectedEnded:
            throw .invalidState(
                activity.state.rawValue, "activity \(id) is \(activity.state.rawValue); it cannot be updated")
        case .rejectedTooLarge(let bytes, let limit):
            throw .tooLarge("attributes and content state are \(bytes) bytes; the limit is \(limit)")
        case .rejectedInvalid(let field):
            throw .invalid("\(field) must be a finite number")
        case .applied:
            emit(.activityUpdated, activity: save(activity), at: now, extra: ["cause": "app"])
        case .deferred, .coalesced:
            save(activity)
            noteFutureChanged(of: activity.deviceId)
        case .ignoredStale, .refusedOverBudget:
            save(activity)
        }
        return (activity, outcome)
    }

    /// `activity.end(_:dismissalPolicy:)` from the app, with the body of `POST /v1/activities/{id}/end`.
    package mutating func endActivity(id: String, body: JSONValue, at time: UnixSeconds) throws(EmulatorError)
        -> LiveActivity
    {
        let request: EndRequest
        do {
            request = try EndRequest(json: body)
        } catch {
            throw .invalid(error)
        }
        guard activities[id] != nil else { throw .notFound("activity", id) }
        let now = arrive(at: time)
        guard var activity = activities[id] else { throw .notFound("activity", id) }
        let outcome = activity.end(
            content: request.content, dismissalPolicy: request.policy, timestamp: request.timestamp, rules: rules,
            at: now)
        switch outcome {
        case .ended:
            recordEnd(of: activity, at: now, cause: "app")
        case .ignoredStale(let last):
            throw .invalidState(activity.state.rawValue, "timestamp is older than the last applied update (\(last))")
        case .rejectedEnded:
            throw .invalidState(activity.state.rawValue, "activity \(id) is already \(activity.state.rawValue)")
        case .rejectedTooLarge(let bytes, let limit):
            throw .tooLarge("attributes and content state are \(bytes) bytes; the limit is \(limit)")
        case .rejectedInvalid(let field):
            throw .invalid("\(field) must be a finite number")
        }
        return activities[id] ?? activity
    }

    /// Saves an activity that has just ended and records `activity.ended` (and `activity.dismissed`
    /// when the policy removed it at once).
    mutating func recordEnd(of activity: LiveActivity, at now: UnixSeconds, cause: String) {
        let snapshot = save(activity)
        emit(.activityEnded, activity: snapshot, at: now, extra: ["cause": .string(cause)])
        if activity.state == .dismissed { emit(.activityDismissed, activity: snapshot, at: now) }
    }

    /// The activity `id`, or 404.
    package func activity(_ id: String) throws(EmulatorError) -> LiveActivity {
        guard let activity = activities[id] else { throw .notFound("activity", id) }
        return activity
    }

    /// Activities matching the filters, ordered as the Lock Screen shows them (relevance, then age).
    package func listActivities(deviceId: String?, bundleId: String?, state: ActivityState?) -> [LiveActivity] {
        LiveActivity.ordered(
            activities.values.filter { activity in
                (deviceId == nil || activity.deviceId == deviceId) && (bundleId == nil || activity.bundleId == bundleId)
                    && (state == nil || activity.state == state)
            })
    }
}

// MARK: - Request bodies

/// The body of `POST /v1/activities`.
struct StartRequest {
    var deviceId: String
    var bundleId: String
    var attributesType: String
    var attributes: JSONValue
    var content: ActivityUpdate
    var wantsToken: Bool
    var channelId: String?

    init(json: JSONValue) throws(JSONFieldError) {
        let fields = try JSONFields(json)
        try fields.rejectUnknown([
            "deviceId", "bundleId", "attributesType", "attributes", "contentState", "staleDate", "relevanceScore",
            "pushType", "timestamp",
        ])
        deviceId = try fields.requireString("deviceId")
        bundleId = try fields.requireString("bundleId")
        attributesType = try fields.requireString("attributesType")
        attributes = try fields.require("attributes")
        guard case .object = attributes else { throw fields.error("attributes", "must be an object") }
        let content = try fields.require("contentState")
        guard case .object = content else { throw fields.error("contentState", "must be an object") }
        self.content = ActivityUpdate(
            contentState: content, staleDate: try fields.number("staleDate"),
            relevanceScore: try fields.number("relevanceScore"), alert: nil, timestamp: try fields.number("timestamp"))
        wantsToken = false
        switch fields.value("pushType") {
        case nil:
            break
        case .string("token")?:
            wantsToken = true
        case .object(let members)? where members.count == 1:
            guard let channel = members["channel"]?.stringValue, !channel.isEmpty else {
                throw fields.error("pushType", "must be \"token\" or {\"channel\": \"<channel id>\"}")
            }
            channelId = channel
        default:
            throw fields.error("pushType", "must be \"token\" or {\"channel\": \"<channel id>\"}")
        }
    }
}

/// The body of `POST /v1/activities/{id}/end`.
struct EndRequest {
    var content: JSONValue?
    var policy: DismissalPolicy
    var timestamp: UnixSeconds?

    init(json: JSONValue) throws(JSONFieldError) {
        let fields = try JSONFields(json.isNull ? [:] : json)
        try fields.rejectUnknown(["contentState", "dismissalPolicy", "timestamp"])
        timestamp = try fields.number("timestamp")
        if let state = fields.value("contentState") {
            guard case .object = state else { throw fields.error("contentState", "must be an object") }
            content = state
        }
        if let policy = fields.value("dismissalPolicy") {
            self.policy = try DismissalPolicy(json: policy, path: fields.keyPath("dismissalPolicy"))
        } else {
            policy = .default
        }
    }
}
