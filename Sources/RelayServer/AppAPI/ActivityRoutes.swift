import RelayCore

/// `/v1/activities`: what the app does with ActivityKit (`Activity.request`, `update`, `end`).
///
/// - `POST /v1/activities` → `201` with the activity (with `pushToken` when `pushType` is `"token"`).
/// - `POST /v1/activities/{id}/update` → `200` with the activity and `outcome` (`applied`, or
///   `ignored` for a `timestamp` older than the last applied one); after the end → `409 invalidState`.
/// - `POST /v1/activities/{id}/end` → `200` with the ended (or at once dismissed) activity.
/// - `GET /v1/activities/{id}`; `GET /v1/activities?deviceId=&bundleId=&state=` → `{"items": [...]}`
///   in Lock Screen order. A device key sees only its own device's activities.
struct ActivityRoutes: RouteGroup {
    let context: AppContext

    func owns(_ path: String) -> Bool { AppContext.segments(path, resource: "activities") != nil }

    func handle(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        let segments = AppContext.segments(request.request.path, resource: "activities") ?? []
        switch segments.count {
        case 0:
            context.dispatch(
                request,
                [AppEndpoint("GET", "app.activity.list", list), AppEndpoint("POST", "app.activity.start", start)],
                respond: respond)
        case 1:
            context.dispatch(
                request, [AppEndpoint("GET", "app.activity.get") { get($0, id: segments[0]) }], respond: respond)
        case 2 where segments[1] == "update":
            context.dispatch(
                request, [AppEndpoint("POST", "app.activity.update") { update($0, id: segments[0]) }], respond: respond)
        case 2 where segments[1] == "end":
            context.dispatch(
                request, [AppEndpoint("POST", "app.activity.end") { end($0, id: segments[0]) }], respond: respond)
        default:
            context.notFound(request, respond: respond)
        }
    }

    private func start(_ call: AppCall) {
        guard let members = call.jsonObject(.required) else { return }
        let principal = call.principal
        let deviceId = members["deviceId"]?.stringValue
        // An activity on a broadcast channel: cluster mode reads the channel for the command.
        let channel = members["pushType"]?["channel"]?.stringValue.flatMap { id in
            members["bundleId"]?.stringValue.map { JoinedChannel(id: id, bundleId: $0) }
        }
        call.commit(
            context.service, ids: .init(device: deviceId), in: deviceId.map(StateScope.device) ?? StateScope.none,
            joining: channel
        ) {
            emulator, now throws(EmulatorError) in
            // A device key may start activities on its own device only; another device reads as unknown.
            if let deviceId, !principal.reaches(deviceId) { throw .notFound("device", deviceId) }
            return try emulator.startActivity(body: .object(members), at: now)
        } success: { activity in
            (201, activity.json, .init(device: activity.deviceId, "activity", activity.id))
        }
    }

    private func update(_ call: AppCall, id: String) {
        let ids = AppCall.LogIDs("activity", id)
        guard let members = call.jsonObject(.required, ids) else { return }
        let principal = call.principal
        call.commit(context.service, ids: ids, in: .activity(id)) { emulator, now throws(EmulatorError) in
            try principal.require(emulator.activities[id]?.deviceId, else: .notFound("activity", id))
            return try emulator.updateActivity(id: id, body: .object(members), at: now)
        } success: { result in
            var body = result.activity.json.objectValue ?? [:]
            body["outcome"] = .string(result.outcome.recordOutcome)
            return (200, .object(body), .init(device: result.activity.deviceId, "activity", id))
        }
    }

    private func end(_ call: AppCall, id: String) {
        let ids = AppCall.LogIDs("activity", id)
        guard let members = call.jsonObject(.optional, ids) else { return }
        let principal = call.principal
        call.commit(context.service, ids: ids, in: .activity(id)) { emulator, now throws(EmulatorError) in
            try principal.require(emulator.activities[id]?.deviceId, else: .notFound("activity", id))
            return try emulator.endActivity(id: id, body: .object(members), at: now)
        } success: { activity in
            (200, activity.json, .init(device: activity.deviceId, "activity", id))
        }
    }

    private func get(_ call: AppCall, id: String) {
        call.read(context.service, ids: .init("activity", id), in: .activity(id)) { emulator throws(EmulatorError) in
            try call.principal.require(emulator.activities[id]?.deviceId, else: .notFound("activity", id))
            let activity = try emulator.activity(id)
            return (activity.json, .init(device: activity.deviceId, "activity", id))
        }
    }

    private func list(_ call: AppCall) {
        guard let query = call.query(allowing: ["deviceId", "bundleId", "state"]) else { return }
        var state: ActivityState?
        if let text = query["state"], !text.isEmpty {
            guard let parsed = ActivityState(rawValue: text) else {
                call.fail(.invalid("state '\(text.prefix(40))' must be active, stale, ended or dismissed"), .init())
                return
            }
            state = parsed
        }
        guard let scope = call.listScope(query["deviceId"]) else { return }
        let bundleId = query["bundleId"].flatMap { $0.isEmpty ? nil : $0 }
        let wanted = state
        call.readItems(context.service, ids: .init(device: scope.deviceId), in: scope.deviceId.map(StateScope.device)) {
            emulator in
            emulator.listActivities(deviceId: scope.deviceId, bundleId: bundleId, state: wanted).map(\.id)
        } item: { emulator, id in
            // Still listed only while it still matches (its state may have moved on).
            emulator.activities[id].flatMap { wanted == nil || $0.state == wanted ? $0.json : nil }
        }
    }
}
