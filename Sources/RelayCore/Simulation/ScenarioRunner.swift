public import RelayJSON

/// Runs a scenario (see README "Scenarios") on a virtual clock against the real core: the same
/// `DeviceEmulator`, APNs rules and budgets the server uses, with deterministic identifiers.
public struct ScenarioRunner {
    private var emulator: DeviceEmulator
    private let start: UnixSeconds
    private var entries: [TimelineEntry] = []
    private var passed = 0
    private var failures: [String] = []
    /// Scenario names → what they refer to.
    private var names: [String: Reference] = [:]
    /// Activity and alarm IDs → scenario names, for readable lines.
    private var labels: [String: String] = [:]
    private var lastStatus = 0
    private var lastOutcome: String?
    private var lastReason: String?
    private var unnamedActivities = 0
    /// The scenario's `faults`, applied to its pushes as one connection's.
    private var faults = FaultPlan()
    private var pushCount = 0

    private enum Reference {
        case device(String)
        case activity(String)
        case alarm(String)
        case pushToStartToken(PushToStartToken)
        case channel(String)
    }

    /// Runs `scenario` and returns its report. A malformed scenario throws an error naming the
    /// JSON path; expectations that fail are reported, not thrown.
    public static func run(_ scenario: JSONValue) throws(ScenarioError) -> SimulationReport {
        guard let top = scenario.objectValue else {
            throw ScenarioError(path: "", message: "a scenario must be an object")
        }
        let known: Set<String> = [
            "name", "description", "start", "seed", "rules", "devices", "steps", "until", "faults",
        ]
        if let unknown = top.keys.sorted().first(where: { !known.contains($0) }) {
            throw ScenarioError(
                path: unknown, message: "is not a scenario key (\(known.sorted().joined(separator: ", ")))")
        }
        let name = top["name"]?.stringValue ?? "unnamed scenario"
        let start = try number(top["start"], path: "start") ?? 1_767_225_600
        // Every time of the run stays a date the report can write.
        let latestStart = lastWritableTime - maxOffset
        guard (0...latestStart).contains(start) else {
            throw ScenarioError(path: "start", message: "must be Unix seconds from 0 to \(Int(latestStart))")
        }
        let seed = try number(top["seed"], path: "seed") ?? 1
        guard (0...9_007_199_254_740_992).contains(seed), seed.rounded() == seed else {
            throw ScenarioError(path: "seed", message: "must be a whole number from 0 to 2^53")
        }
        var rules = RelayRules.defaults
        if let json = top["rules"] {
            do {
                rules = try RelayRules(json: json, path: "rules")
            } catch {
                throw ScenarioError(path: error.key, message: error.message)
            }
        }
        var runner = ScenarioRunner(
            emulator: DeviceEmulator(rules: rules, ids: SeededIdentifiers(seed: UInt64(seed)), now: start),
            start: start)
        runner.faults.seed = UInt64(seed)
        try runner.addFaults(top["faults"], at: start)
        try runner.createDevices(top["devices"])
        let steps = try Self.requiredArray(top["steps"], path: "steps", of: "steps", allowsEmpty: true)
        var previous = 0.0
        for (index, step) in steps.enumerated() {
            let path = "steps[\(index)]"
            guard let members = step.objectValue else { throw ScenarioError(path: path, message: "must be an object") }
            let form = "seconds or a duration like \"90s\", \"15m\", \"8h\""
            guard let atValue = members["at"] else {
                throw ScenarioError(path: "\(path).at", message: "is required: \(form)")
            }
            guard let offset = DurationText.seconds(atValue), offset >= 0 else {
                throw ScenarioError(path: "\(path).at", message: "is not a time (\(atValue.jsonString)): use \(form)")
            }
            guard offset >= previous else {
                throw ScenarioError(
                    path: "\(path).at", message: "steps must be in time order (\(offset) < \(previous))")
            }
            guard offset <= maxOffset else { throw Self.tooLate(path: "\(path).at", offset) }
            previous = offset
            try runner.run(step: members, at: start + offset, path: path)
        }
        if let until = top["until"] {
            guard let offset = DurationText.seconds(until), offset >= previous else {
                throw ScenarioError(path: "until", message: "must be a duration no earlier than the last step")
            }
            guard offset <= maxOffset else { throw Self.tooLate(path: "until", offset) }
            runner.emulator.advance(to: start + offset)
            runner.flush()
        }
        return SimulationReport(
            name: name, start: start, entries: runner.entries, expectationsPassed: runner.passed,
            failures: runner.failures,
            finalActivities: runner.emulator.listActivities(deviceId: nil, bundleId: nil, state: nil).map(\.json),
            finalAlarms: runner.emulator.listAlarms(deviceId: nil).map(\.json))
    }

    /// How far after `start` a scenario may go: ten years of 365 days, room for any lifetime and
    /// years of a repeating alarm, with every time still a date the report can write.
    static let maxOffset: Double = 3650 * 86_400
    /// 9999-12-31T23:59:59Z, the last time `UTCDate` writes as a four-digit-year date.
    static let lastWritableTime: Double = 253_402_300_799

    private static func tooLate(path: String, _ offset: Double) -> ScenarioError {
        let days = Int(maxOffset / 86_400)
        return ScenarioError(
            path: path,
            message:
                "is \(offset) seconds after the start; a scenario runs for at most \(days) days (\(Int(maxOffset)) seconds)"
        )
    }

    private init(emulator: DeviceEmulator, start: UnixSeconds) {
        self.emulator = emulator
        self.start = start
    }

    // MARK: - Setup

    private mutating func createDevices(_ value: JSONValue?) throws(ScenarioError) {
        let devices = try Self.requiredArray(
            value, path: "devices", of: #"{"name", "apps"}"#, allowsEmpty: false)
        for (index, entry) in devices.enumerated() {
            let path = "devices[\(index)]"
            if let members = entry.objectValue {
                try Self.rejectUnknown(members, allowed: ["name", "apps"], path: path)
            }
            let name = try Self.requiredText(entry["name"], path: "\(path).name")
            let device = emulator.createDevice(keyHash: "simulation", at: start)
            names[name] = .device(device.id)
            labels[device.id] = name
            for (bundleId, settings) in (entry["apps"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
                do {
                    _ = try emulator.updateAppSettings(
                        deviceId: device.id, bundleId: bundleId, body: settings, at: start)
                } catch {
                    throw ScenarioError(path: "\(path).apps.\(bundleId)", message: error.message)
                }
            }
        }
        _ = emulator.takeEffects()
    }

    // MARK: - Steps

    private mutating func run(step: JSONObject, at time: UnixSeconds, path: String) throws(ScenarioError) {
        emulator.advance(to: time)
        flush()
        guard let action = step["do"]?.stringValue else {
            throw ScenarioError(path: "\(path).do", message: "is required: the step's action")
        }
        if let allowed = Self.stepMembers[action] {
            try Self.rejectUnknown(step, allowed: allowed.union(["at", "do", "name"]), path: path)
        }
        let values = ScenarioValues(start: start, now: time, named: namedValues())
        var body = step
        for key in ["at", "do", "name"] { body[key] = nil }
        switch action {
        case "start": try startActivity(step, body: body, values: values, at: time, path: path)
        case "update", "end": try changeActivity(action, body: body, values: values, at: time, path: path)
        case "settings": try changeSettings(body, values: values, at: time, path: path)
        case "pushToStartToken": try issuePushToStartToken(step, body: body, at: time, path: path)
        case "push": try push(step, body: body, values: values, at: time, path: path)
        case "createChannel": try createChannel(step, body: body, at: time, path: path)
        case "broadcast": try broadcast(body, values: values, at: time, path: path)
        case "scheduleAlarm": try scheduleAlarm(step, body: body, values: values, at: time, path: path)
        case "alarm": try operateAlarm(body, at: time, path: path)
        case "expect": try expect(body, values: values, at: time, path: path)
        case "advance": break
        case "timeline": try widgetTimeline(body, values: values, at: time, path: path)
        default:
            throw ScenarioError(
                path: "\(path).do",
                message: "'\(action)' is not an action (start, update, end, settings, pushToStartToken, push, "
                    + "createChannel, broadcast, scheduleAlarm, alarm, expect, advance, timeline)")
        }
        flush()
    }

    /// The members each action reads besides `at`, `do` and `name`; any other is an error, since a
    /// misspelt member (`header` for `headers`) would otherwise change the result unseen.
    static let stepMembers: [String: Set<String>] = [
        "start": [
            "device", "deviceId", "bundleId", "attributesType", "attributes", "contentState", "staleDate",
            "relevanceScore", "pushType", "timestamp",
        ],
        "update": ["activity", "contentState", "staleDate", "relevanceScore", "alert", "timestamp"],
        "end": ["activity", "contentState", "dismissalPolicy", "timestamp"],
        "settings": ["device", "bundleId", "settings"],
        "pushToStartToken": ["device", "bundleId", "attributesType"],
        "push": ["to", "token", "headers", "payload", "rawPayload"],
        "createChannel": ["bundleId", "storagePolicy"],
        "broadcast": ["channel", "headers", "payload", "rawPayload"],
        "scheduleAlarm": [
            "device", "bundleId", "id", "schedule", "timeZone", "countdownDuration", "presentation", "metadata",
            "tintColor", "sound",
        ],
        "alarm": ["alarm", "operation"],
        "expect": Set(activityChecks + alarmChecks + resultChecks + ["activity", "alarm"]),
        "advance": [],
        "timeline": ["device", "family", "until", "expect"],
    ]
    /// What an expectation can check of an activity, of an alarm, and of the last result.
    static let activityChecks = ["state", "contentState", "staleDate", "dismissAt", "endedAt", "relevanceScore"]
    static let alarmChecks = ["state", "mode", "nextAlertAt"]
    static let resultChecks = ["status", "outcome", "reason"]

    /// Throws for the first member of `object` (in key order) not in `allowed`, naming its JSON path.
    static func rejectUnknown(_ object: JSONObject, allowed: Set<String>, path: String) throws(ScenarioError) {
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw ScenarioError(
                path: path.isEmpty ? unknown : "\(path).\(unknown)",
                message: "is not a known member here (\(allowed.sorted().joined(separator: ", ")))")
        }
    }

    private mutating func startActivity(
        _ step: JSONObject, body: JSONObject, values: ScenarioValues, at time: UnixSeconds,
        path: String
    ) throws(ScenarioError) {
        var request = try values.resolve(.object(body), path: path)
        if case .object(var members) = request, let device = members["device"]?.stringValue {
            members["device"] = nil
            members["deviceId"] = .string(try deviceID(device, path: "\(path).device"))
            request = .object(members)
        }
        let label = step["name"]?.stringValue
        do {
            let activity = try emulator.startActivity(body: request, at: time)
            name(activity: activity.id, label)
            note(
                time, "app",
                "start \(labels[activity.id] ?? activity.id) (\(activity.attributesType)) → \(activity.state.rawValue)",
                status: 201)
        } catch {
            note(
                time, "app", "start \(label ?? "activity") → \(error.status) \(error.code): \(error.message)",
                status: error.status)
        }
    }

    private mutating func changeActivity(
        _ action: String, body: JSONObject, values: ScenarioValues, at time: UnixSeconds, path: String
    ) throws(ScenarioError) {
        guard let label = body["activity"]?.stringValue else {
            throw ScenarioError(path: "\(path).activity", message: "is required: the name given at start")
        }
        let id = try activityID(label, path: "\(path).activity")
        var request = body
        request["activity"] = nil
        let resolved = try values.resolve(.object(request), path: path)
        do {
            if action == "update" {
                let (activity, outcome) = try emulator.updateActivity(id: id, body: resolved, at: time)
                note(
                    time, "app", "update \(label) → \(outcome.recordOutcome) (\(activity.state.rawValue))", status: 200)
            } else {
                let activity = try emulator.endActivity(id: id, body: resolved, at: time)
                let dismiss = activity.dismissAt.map { " dismiss at " + DurationText.offset($0 - start) } ?? ""
                note(time, "app", "end \(label) → \(activity.state.rawValue)\(dismiss)", status: 200)
            }
        } catch {
            note(
                time, "app", "\(action) \(label) → \(error.status) \(error.code): \(error.message)",
                status: error.status)
        }
    }

    private mutating func changeSettings(
        _ body: JSONObject, values: ScenarioValues, at time: UnixSeconds, path: String
    ) throws(ScenarioError) {
        let device = try deviceID(try requireString(body, "device", path: path), path: "\(path).device")
        let bundleId = try requireString(body, "bundleId", path: path)
        let settings = try values.resolve(body["settings"] ?? [:], path: "\(path).settings")
        do {
            let applied = try emulator.updateAppSettings(deviceId: device, bundleId: bundleId, body: settings, at: time)
            note(time, "app", "settings \(bundleId): \(applied.json.jsonString)", status: 200)
        } catch {
            throw ScenarioError(path: "\(path).settings", message: error.message)
        }
    }

    private mutating func issuePushToStartToken(
        _ step: JSONObject, body: JSONObject, at time: UnixSeconds, path: String
    ) throws(ScenarioError) {
        let label = try requireString(step, "name", path: path)
        let device = try deviceID(try requireString(body, "device", path: path), path: "\(path).device")
        let bundleId = try requireString(body, "bundleId", path: path)
        let attributesType = try requireString(body, "attributesType", path: path)
        do {
            let token = try emulator.pushToStartToken(
                deviceId: device, bundleId: bundleId, attributesType: attributesType, at: time)
            names[label] = .pushToStartToken(token)
            note(
                time, "app", "push-to-start token \(label) for \(token.attributesType): \(token.token.prefix(12))…",
                status: 200)
        } catch {
            throw ScenarioError(path: path, message: error.message)
        }
    }

    private mutating func push(
        _ step: JSONObject, body: JSONObject, values: ScenarioValues, at time: UnixSeconds,
        path: String
    ) throws(ScenarioError) {
        var token: String
        var bundleId: String?
        var target: String
        if let label = body["to"]?.stringValue {
            target = label
            switch names[label] {
            case .activity(let id)?:
                guard let activity = emulator.activities[id] else {
                    throw ScenarioError(path: "\(path).to", message: "activity \(label) does not exist")
                }
                guard let pushToken = activity.pushToken else {
                    throw ScenarioError(
                        path: "\(path).to",
                        message: "activity \(label) has no push token (start it with pushType \"token\")")
                }
                token = pushToken
                bundleId = activity.bundleId
            case .pushToStartToken(let issued)?:
                token = issued.token
                bundleId = issued.bundleId
            default:
                throw ScenarioError(
                    path: "\(path).to", message: "'\(label)' is not an activity or push-to-start token name")
            }
        } else if let literal = body["token"]?.stringValue {
            token = literal
            target = "token \(literal.prefix(12))"
        } else {
            throw ScenarioError(path: "\(path).to", message: "a push needs \"to\" (a name) or \"token\"")
        }
        var headers: JSONObject = ["apns-push-type": "liveactivity"]
        if let bundleId { headers["apns-topic"] = .string(bundleId + APNsTopic.liveActivitySuffix) }
        let explicit = try values.resolve(body["headers"] ?? [:], path: "\(path).headers")
        guard let explicitMembers = explicit.objectValue else {
            throw ScenarioError(path: "\(path).headers", message: "must be an object of header names to strings")
        }
        for (key, value) in explicitMembers { headers[key.lowercased()] = value.isNull ? nil : value }
        let fields = try headerFields(headers, path: "\(path).headers")
        let (bytes, payload) = try payloadBytes(body, values: values, path: path)
        let context = PushContext(
            apnsId: fields.first { $0.name == "apns-id" }?.value ?? emulator.ids.uuid(), uniqueId: emulator.ids.uuid(),
            headers: .object(JSONObject(members: fields.map { (key: $0.name, value: .string($0.value)) })),
            payload: payload)
        let validated = LiveActivityPushRequest.validate(
            method: "POST", path: LiveActivityPushRequest.pathPrefix + token, headers: APNsHeaderFields(fields),
            body: bytes, parseJSON: { try JSONValue(parsing: $0) }, authenticate: { _ in nil },
            authorizeBundle: { _ in nil })
        let result: PushResult
        switch validated {
        case .success(let request):
            result = deliver(request, context: context, at: time)
        case .failure(let error):
            result = emulator.recordRefusal(
                error, token: token, bundleId: bundleId, context: context, at: time)
        }
        if let started = result.record.activityId, result.record.outcome == .started {
            unnamedActivities += 1
            name(activity: started, step["name"]?.stringValue ?? "\(target)#\(unnamedActivities)")
        }
        let event = payload["aps"]?["event"]?.stringValue ?? "?"
        let priority = fields.first { $0.name == "apns-priority" }?.value ?? "10"
        notePush(time, "push", "\(event) → \(target) p\(priority)", result: result)
    }

    /// The scenario's `faults`: rules in the shape of `POST /v1/faults`, except `refuseHandshakes`
    /// (a simulation makes no connections).
    private mutating func addFaults(_ value: JSONValue?, at start: UnixSeconds) throws(ScenarioError) {
        guard let value, !value.isNull else { return }
        guard let elements = value.arrayValue else {
            throw ScenarioError(path: "faults", message: "must be a list of fault rules (found \(value.typeName))")
        }
        for (index, element) in elements.enumerated() {
            let path = "faults[\(index)]"
            let parsed: (rule: FaultRule, ownSeed: Bool)
            do {
                parsed = try FaultRule.parse(element, path: path, createdAt: start)
            } catch {
                throw ScenarioError(path: error.key, message: error.message)
            }
            if case .refuseHandshakes = parsed.rule.action {
                throw ScenarioError(path: "\(path).kind", message: "refuseHandshakes has no effect in a simulation")
            }
            guard faults.add(parsed.rule, ownSeed: parsed.ownSeed) != nil else {
                throw ScenarioError(path: path, message: "at most \(FaultPlan.maxRules) fault rules")
            }
        }
    }

    /// A valid push through the scenario's fault rules, then (unless one answered) to the device.
    /// GOAWAY and reset answer nothing (status 0): a client would send the push again.
    private mutating func deliver(_ request: LiveActivityPushRequest, context: PushContext, at time: UnixSeconds)
        -> PushResult
    {
        pushCount += 1
        guard !faults.rules.isEmpty else { return emulator.deliver(request, context: context, at: time) }
        let decision = faults.decide(
            bundleId: request.bundleID, token: request.deviceToken.hex, connectionPushes: pushCount)
        var context = context
        if !decision.isEmpty { context.fault = decision.json }
        switch decision.rule?.action {
        case .error(let status, let reason):
            return emulator.recordInjected(
                request, status: status, reason: reason, fault: decision.json, context: context, at: time)
        case .goaway, .reset:
            return emulator.recordInjected(
                request, status: 0, reason: nil, fault: decision.json, context: context, at: time)
        default:
            return emulator.deliver(request, context: context, at: time)
        }
    }

    private mutating func createChannel(
        _ step: JSONObject, body: JSONObject, at time: UnixSeconds, path: String
    ) throws(ScenarioError) {
        let label = try requireString(step, "name", path: path)
        let bundleId = try requireString(body, "bundleId", path: path)
        var policy = MessageStoragePolicy.noMessageStored
        if let value = body["storagePolicy"], !value.isNull {
            guard let chosen = MessageStoragePolicy(creating: value) else {
                throw ScenarioError(path: "\(path).storagePolicy", message: "must be 0 or 1")
            }
            policy = chosen
        }
        switch emulator.createChannel(bundleId: bundleId, policy: policy, at: time) {
        case .success(let channel):
            names[label] = .channel(channel.id)
            note(
                time, "app", "channel \(label) created for \(bundleId), storage policy \(policy.rawValue)", status: 201)
        case .failure(let error):
            note(time, "app", "channel \(label) → \(error.status) \(error.reason.rawValue)", status: error.status)
        }
    }

    private mutating func broadcast(
        _ body: JSONObject, values: ScenarioValues, at time: UnixSeconds, path: String
    ) throws(ScenarioError) {
        let label = try requireString(body, "channel", path: path)
        guard case .channel(let channelId)? = names[label], let channel = emulator.channels[channelId] else {
            throw ScenarioError(path: "\(path).channel", message: "'\(label)' is not a channel name")
        }
        var headers: JSONObject = [
            "apns-push-type": "liveactivity", "apns-channel-id": .string(channelId), "apns-priority": "10",
        ]
        let explicit = try values.resolve(body["headers"] ?? [:], path: "\(path).headers")
        for (key, value) in explicit.objectValue ?? [:] { headers[key.lowercased()] = value.isNull ? nil : value }
        let fields = try headerFields(headers, path: "\(path).headers")
        let (bytes, payload) = try payloadBytes(body, values: values, path: path)
        let context = PushContext(
            apnsId: emulator.ids.uuid(), uniqueId: emulator.ids.uuid(),
            headers: .object(JSONObject(members: fields.map { (key: $0.name, value: .string($0.value)) })),
            payload: payload)
        let channels = emulator.channels
        let validated = BroadcastPushRequest.validate(
            method: "POST", path: BroadcastPushRequest.pathPrefix + channel.bundleId, headers: APNsHeaderFields(fields),
            body: bytes, parseJSON: { try JSONValue(parsing: $0) }, authorize: { _, _ in nil },
            storagePolicy: { id, bundle in
                guard let found = channels[id.rawValue], found.bundleId == bundle else { return nil }
                return MessageStoragePolicy(rawValue: found.storagePolicy)
            })
        let result: PushResult
        switch validated {
        case .success(let request): result = emulator.deliverBroadcast(request, context: context, at: time)
        case .failure(let error):
            result = emulator.recordRefusal(
                error, token: nil, channelId: channelId, bundleId: channel.bundleId, context: context, at: time)
        }
        let event = payload["aps"]?["event"]?.stringValue ?? "?"
        notePush(time, "broadcast", "\(event) → channel \(label)", result: result)
    }

    private mutating func scheduleAlarm(
        _ step: JSONObject, body: JSONObject, values: ScenarioValues, at time: UnixSeconds,
        path: String
    ) throws(ScenarioError) {
        let label = try requireString(step, "name", path: path)
        var request = body
        request["deviceId"] = .string(
            try deviceID(try requireString(body, "device", path: path), path: "\(path).device"))
        request["device"] = nil
        let resolved = try values.resolve(.object(request), path: path)
        do {
            let alarm = try emulator.scheduleAlarm(body: resolved, at: time)
            names[label] = .alarm(alarm.id)
            labels[alarm.id] = label
            note(time, "app", "schedule alarm \(label) → \(alarm.state.rawValue)\(describeNext(alarm))", status: 201)
        } catch {
            note(
                time, "app", "schedule alarm \(label) → \(error.status) \(error.code): \(error.message)",
                status: error.status)
        }
    }

    private mutating func operateAlarm(_ body: JSONObject, at time: UnixSeconds, path: String)
        throws(ScenarioError)
    {
        let label = try requireString(body, "alarm", path: path)
        guard case .alarm(let id)? = names[label] else {
            throw ScenarioError(path: "\(path).alarm", message: "'\(label)' is not an alarm name")
        }
        let opName = try requireString(body, "operation", path: path)
        guard let operation = DeviceEmulator.AlarmOperation(rawValue: opName) else {
            throw ScenarioError(path: "\(path).operation", message: "must be pause, resume, countdown, stop or cancel")
        }
        do {
            let alarm = try emulator.operateAlarm(id: id, operation, at: time)
            let state = alarm.removedAt == nil ? alarm.state.rawValue : "removed"
            note(time, "app", "\(opName) alarm \(label) → \(state)\(describeNext(alarm))", status: 200)
        } catch {
            note(
                time, "app", "\(opName) alarm \(label) → \(error.status) \(error.code): \(error.message)",
                status: error.status)
        }
    }

    // MARK: - Expectations

    private mutating func expect(
        _ body: JSONObject, values: ScenarioValues, at time: UnixSeconds, path: String
    ) throws(ScenarioError) {
        var checks: [(String, JSONValue?, JSONValue)] = []
        var subject = "last result"
        if let label = body["activity"]?.stringValue {
            subject = label
            let activity = emulator.activities[try activityID(label, path: "\(path).activity")]
            try Self.rejectUnknown(
                body, allowed: Set(Self.activityChecks + Self.resultChecks + ["activity"]), path: path)
            for key in Self.activityChecks {
                if let wanted = body[key] {
                    checks.append((key, activity?.json[key], try values.resolve(wanted, path: "\(path).\(key)")))
                }
            }
        } else if let label = body["alarm"]?.stringValue {
            subject = label
            guard case .alarm(let id)? = names[label] else {
                throw ScenarioError(path: "\(path).alarm", message: "'\(label)' is not an alarm name")
            }
            try Self.rejectUnknown(body, allowed: Set(Self.alarmChecks + Self.resultChecks + ["alarm"]), path: path)
            let alarm = emulator.alarms[id]
            if let wanted = body["state"] {
                checks.append(("state", .string(alarm?.state.rawValue ?? "removed"), wanted))
            }
            if let wanted = body["mode"] {
                checks.append(("mode", alarm?.json["presentationState"]?["mode"] ?? .null, wanted))
            }
            if let wanted = body["nextAlertAt"] {
                checks.append(
                    (
                        "nextAlertAt", alarm?.json["nextAlertAt"] ?? .null,
                        try values.resolve(wanted, path: "\(path).nextAlertAt")
                    ))
            }
        }
        if body["activity"] == nil && body["alarm"] == nil {
            try Self.rejectUnknown(body, allowed: Set(Self.resultChecks), path: path)
        }
        for (key, actual) in [
            ("status", JSONValue.int(Int64(lastStatus))), ("outcome", .optional(lastOutcome.map(JSONValue.string))),
            ("reason", .optional(lastReason.map(JSONValue.string))),
        ] {
            if let wanted = body[key] { checks.append((key, actual, wanted)) }
        }
        guard !checks.isEmpty else {
            throw ScenarioError(
                path: path, message: "an expectation needs something to check (state, status, outcome, ...)")
        }
        for (key, actual, wanted) in checks {
            let found = actual ?? .null
            if found == wanted || (found.doubleValue != nil && found.doubleValue == wanted.doubleValue) {
                passed += 1
                note(time, "expect", "\(subject) \(key) = \(wanted.jsonString) ✓", status: nil)
            } else {
                let line =
                    "\(DurationText.offset(time - start)) \(subject) \(key): expected \(wanted.jsonString), found \(found.jsonString)"
                failures.append(line)
                note(
                    time, "expect", "\(subject) \(key): expected \(wanted.jsonString), found \(found.jsonString) ✗",
                    status: nil)
            }
        }
    }

    // MARK: - Widget timelines

    /// `{"do": "timeline", "device", "family"?, "until"?, "expect"?}`: prints the device's widget
    /// timeline (one `widget` line per entry) and checks what `expect` names: `entries` (how
    /// many), `policy` (`{"atEnd": true}`, `{"after": t}`, `{"never": true}`), `dates` (each
    /// entry's date) and `top` (the name of each entry's most relevant item, null for none).
    private mutating func widgetTimeline(
        _ body: JSONObject, values: ScenarioValues, at time: UnixSeconds, path: String
    ) throws(ScenarioError) {
        let label = try requireString(body, "device", path: path)
        let device = try deviceID(label, path: "\(path).device")
        var family = WidgetFamily.systemMedium
        if let name = body["family"] {
            guard let chosen = name.stringValue.flatMap(WidgetFamily.init(rawValue:)) else {
                let known = WidgetFamily.allCases.map(\.rawValue).joined(separator: ", ")
                throw ScenarioError(path: "\(path).family", message: "must be one of \(known)")
            }
            family = chosen
        }
        var until: UnixSeconds?
        if let value = body["until"] {
            guard let resolved = try values.resolve(value, path: "\(path).until").doubleValue else {
                throw ScenarioError(path: "\(path).until", message: "must be a time, like \"$now+2h\"")
            }
            until = resolved
        }
        let timeline: WidgetTimeline
        do {
            timeline = try emulator.widgetTimeline(deviceId: device, family: family, until: until, at: time)
        } catch {
            throw ScenarioError(path: "\(path).until", message: error.message)
        }
        let policy: String
        switch timeline.policy {
        case .atEnd: policy = "atEnd"
        case .after(let date): policy = "after " + DurationText.offset(date - start)
        case .never: policy = "never"
        }
        note(
            time, "widget", "\(label) \(family.rawValue): \(timeline.entries.count) entries, policy \(policy)",
            status: nil)
        for entry in timeline.entries {
            let items = entry.items.map { item in
                var text = "\(labels[item.id] ?? item.id) \(item.state)"
                if let remaining = item.remaining { text += " " + DurationText.offset(remaining).dropFirst() + " left" }
                return text
            }
            let shown = items.isEmpty ? "nothing" : items.joined(separator: ", ")
            note(
                time, "widget",
                "  \(DurationText.offset(entry.date - start)) relevance \(entry.relevance.plainText): \(shown)",
                status: nil)
        }
        guard let wanted = body["expect"] else { return }
        guard let expected = wanted.objectValue, !expected.isEmpty else {
            throw ScenarioError(
                path: "\(path).expect", message: "must be an object with entries, policy, dates and/or top")
        }
        let known: Set<String> = ["entries", "policy", "dates", "top"]
        if let unknown = expected.keys.sorted().first(where: { !known.contains($0) }) {
            throw ScenarioError(path: "\(path).expect.\(unknown)", message: "is not entries, policy, dates or top")
        }
        let found: JSONObject = [
            "entries": .int(Int64(timeline.entries.count)), "policy": timeline.policy.json,
            "dates": .array(timeline.entries.map { .number($0.date) }),
            "top": .array(
                timeline.entries.map { entry in .optional(entry.items.first.map { .string(labels[$0.id] ?? $0.id) }) }),
        ]
        for key in expected.keys.sorted() {
            let want = try values.resolve(expected[key] ?? .null, path: "\(path).expect.\(key)")
            let actual = found[key] ?? .null
            if actual == want || Self.sameNumbers(actual, want) {
                passed += 1
                note(time, "expect", "\(label) timeline \(key) = \(want.jsonString) ✓", status: nil)
            } else {
                failures.append(
                    "\(DurationText.offset(time - start)) \(label) timeline \(key): expected \(want.jsonString), found \(actual.jsonString)"
                )
                note(
                    time, "expect",
                    "\(label) timeline \(key): expected \(want.jsonString), found \(actual.jsonString) ✗",
                    status: nil)
            }
        }
    }

    /// Whether two values are equal once every number in them is compared as a number (`5` and
    /// `5.0`, and `$now` expressions, which resolve to doubles).
    private static func sameNumbers(_ left: JSONValue, _ right: JSONValue) -> Bool {
        if let a = left.doubleValue, let b = right.doubleValue { return a == b }
        if let a = left.arrayValue, let b = right.arrayValue {
            return a.count == b.count && zip(a, b).allSatisfy { sameNumbers($0, $1) }
        }
        if let a = left.objectValue, let b = right.objectValue {
            return a.keys.sorted() == b.keys.sorted()
                && a.keys.allSatisfy { sameNumbers(a[$0] ?? .null, b[$0] ?? .null) }
        }
        return left == right
    }

    // MARK: - Lines

    private mutating func note(_ time: UnixSeconds, _ actor: String, _ text: String, status: Int?) {
        if let status {
            lastStatus = status
            lastOutcome = nil
            lastReason = nil
        }
        entries.append(TimelineEntry(at: time, actor: actor, text: text, event: nil))
    }

    private mutating func notePush(_ time: UnixSeconds, _ actor: String, _ what: String, result: PushResult) {
        let record = result.record
        var text = "\(what) → \(record.status)"
        if let reason = record.reason { text += " \(reason)" }
        text += " (\(record.outcome.rawValue))"
        if let hint = record.hint { text += " — " + hint }
        entries.append(TimelineEntry(at: time, actor: actor, text: text, event: nil))
        lastStatus = record.status
        lastOutcome = record.outcome.rawValue
        lastReason = record.reason
    }

    /// Turns the emulator's events into `device` lines.
    private mutating func flush() {
        for event in emulator.takeEffects().events where event.type != .pushReceived && event.type != .timelineReload {
            entries.append(TimelineEntry(at: event.at, actor: "device", text: describe(event), event: event.data))
        }
    }

    private func describe(_ event: RelayEvent) -> String {
        let cause = event.extra["cause"]?.stringValue.map { " (\($0))" } ?? ""
        if let id = event.activityId {
            let label = labels[id] ?? id
            let subject = event.subject
            switch event.type {
            case .activityPushToken:
                return "\(label) push token \(subject["pushToken"]?.stringValue?.prefix(12) ?? "")…"
            case .activityEnded:
                let dismiss =
                    subject["dismissAt"]?.doubleValue.map { ", dismissed at " + DurationText.offset($0 - start) } ?? ""
                return "\(label) ended\(cause)\(dismiss)"
            default:
                let kind = event.type.rawValue.dropFirst("activity.".count)
                let content = subject["contentState"]?.jsonString ?? "{}"
                return "\(label) \(kind)\(cause): \(subject["state"]?.stringValue ?? "?") \(content)"
            }
        }
        if let id = event.alarmId {
            let label = labels[id] ?? id
            if event.type == .alarmRemoved { return "alarm \(label) removed" }
            let state = event.subject["state"]?.stringValue ?? "?"
            let mode = event.subject["presentationState"]?["mode"]?.stringValue.map { " [\($0)]" } ?? ""
            let next =
                event.subject["nextAlertAt"]?.doubleValue.map { ", next alert " + DurationText.offset($0 - start) }
                ?? ""
            return "alarm \(label) \(state)\(mode)\(next)"
        }
        return event.type.rawValue
    }

    private func describeNext(_ alarm: Alarm) -> String {
        guard let next = alarm.nextAlertAt else { return "" }
        return ", next alert " + DurationText.offset(next - start)
    }

    // MARK: - Helpers

    private mutating func name(activity id: String, _ label: String?) {
        unnamedActivities += label == nil ? 1 : 0
        let name = label ?? "activity-\(unnamedActivities)"
        names[name] = .activity(id)
        labels[id] = name
    }

    private func namedValues() -> JSONObject {
        var values: JSONObject = [:]
        for (name, reference) in names {
            switch reference {
            case .device(let id): values[name] = emulator.devices[id]?.json
            case .activity(let id): values[name] = emulator.activities[id]?.json
            case .alarm(let id): values[name] = emulator.alarms[id]?.json
            case .pushToStartToken(let token): values[name] = token.json
            case .channel(let id): values[name] = ["id": .string(id)]
            }
        }
        return values
    }

    private func deviceID(_ label: String, path: String) throws(ScenarioError) -> String {
        guard case .device(let id)? = names[label] else {
            throw ScenarioError(path: path, message: "'\(label)' is not a device name")
        }
        return id
    }

    private func activityID(_ label: String, path: String) throws(ScenarioError) -> String {
        guard case .activity(let id)? = names[label] else {
            throw ScenarioError(path: path, message: "'\(label)' is not an activity name")
        }
        return id
    }

    private func requireString(_ body: JSONObject, _ key: String, path: String) throws(ScenarioError) -> String {
        try Self.requiredText(body[key], path: "\(path).\(key)")
    }

    /// A member that must be an array of `what`: "is required" when it is missing (or null), and
    /// what was found instead when it is there but is not one (or is empty, unless allowed), as
    /// `requiredText` does.
    private static func requiredArray(
        _ value: JSONValue?, path: String, of what: String, allowsEmpty: Bool
    ) throws(ScenarioError) -> [JSONValue] {
        let kind = allowsEmpty ? "an array" : "a non-empty array"
        guard let value, !value.isNull else {
            throw ScenarioError(path: path, message: "is required: \(kind) of \(what)")
        }
        guard let elements = value.arrayValue, allowsEmpty || !elements.isEmpty else {
            throw ScenarioError(path: path, message: "must be \(kind) of \(what), not \(value.jsonString)")
        }
        return elements
    }

    /// A member that must be a non-empty string: "is required" when it is missing (or null), and
    /// what was found instead when it is there but is not one.
    private static func requiredText(_ value: JSONValue?, path: String) throws(ScenarioError) -> String {
        guard let value, !value.isNull else { throw ScenarioError(path: path, message: "is required (a string)") }
        guard let text = value.stringValue, !text.isEmpty else {
            throw ScenarioError(path: path, message: "must be a non-empty string, not \(value.jsonString)")
        }
        return text
    }

    private func headerFields(_ headers: JSONObject, path: String) throws(ScenarioError) -> [(
        name: String, value: String
    )] {
        var fields: [(name: String, value: String)] = []
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            switch value {
            case .string(let text): fields.append((name, text))
            case .int(let number): fields.append((name, String(number)))
            default: throw ScenarioError(path: "\(path).\(name)", message: "header values must be strings or integers")
            }
        }
        return fields
    }

    /// The push body: `payload` (resolved and serialized) or `rawPayload` (sent as written, to try malformed bodies).
    private func payloadBytes(
        _ body: JSONObject, values: ScenarioValues, path: String
    ) throws(ScenarioError) -> ([UInt8], JSONValue) {
        if let raw = body["rawPayload"]?.stringValue { return (Array(raw.utf8), .string(raw)) }
        guard let payload = body["payload"] else {
            throw ScenarioError(path: "\(path).payload", message: "is required (or rawPayload)")
        }
        let resolved = try values.resolve(payload, path: "\(path).payload")
        return (resolved.serialized(), resolved)
    }

    private static func number(_ value: JSONValue?, path: String) throws(ScenarioError) -> Double? {
        guard let value, !value.isNull else { return nil }
        guard let number = value.doubleValue, number.isFinite else {
            throw ScenarioError(path: path, message: "must be a number")
        }
        return number
    }
}
