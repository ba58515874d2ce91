import RelayCore

/// `/v1/alarms`: what the app does with AlarmKit's `AlarmManager`.
///
/// - `POST /v1/alarms` → `201` with the alarm; `403 alarmsNotAuthorized` when the person denied
///   alarms for the app; `409 alreadyExists` for an `id` in use.
/// - `POST /v1/alarms/{id}/pause|resume|countdown|stop|cancel` → `200` with the alarm (a removed
///   alarm carries `removedAt`); not allowed from the current state → `409 {"error": "invalidState", "state"}`.
/// - `GET /v1/alarms/{id}`; `GET /v1/alarms?deviceId=` → `{"items": [...]}` by next alert.
///   A device key sees only its own device's alarms.
struct AlarmRoutes: RouteGroup {
    let context: AppContext

    func owns(_ path: String) -> Bool { AppContext.segments(path, resource: "alarms") != nil }

    func handle(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        let segments = AppContext.segments(request.request.path, resource: "alarms") ?? []
        switch segments.count {
        case 0:
            context.dispatch(
                request,
                [AppEndpoint("GET", "app.alarm.list", list), AppEndpoint("POST", "app.alarm.schedule", schedule)],
                respond: respond)
        case 1:
            context.dispatch(
                request, [AppEndpoint("GET", "app.alarm.get") { get($0, id: segments[0]) }], respond: respond)
        case 2:
            guard let operation = DeviceEmulator.AlarmOperation(rawValue: segments[1]) else {
                context.notFound(request, respond: respond)
                return
            }
            context.dispatch(
                request,
                [AppEndpoint("POST", "app.alarm.\(operation.rawValue)") { operate($0, id: segments[0], operation) }],
                respond: respond)
        default:
            context.notFound(request, respond: respond)
        }
    }

    private func schedule(_ call: AppCall) {
        guard let members = call.jsonObject(.required) else { return }
        let principal = call.principal
        let deviceId = members["deviceId"]?.stringValue
        call.commit(
            context.service, ids: .init(device: deviceId), in: deviceId.map(StateScope.device) ?? StateScope.none
        ) { emulator, now throws(EmulatorError) in
            // A device key schedules on its own device only; another device reads as unknown.
            if let deviceId, !principal.reaches(deviceId) { throw .notFound("device", deviceId) }
            return try emulator.scheduleAlarm(body: .object(members), at: now)
        } success: { alarm in
            (201, alarm.json, .init(device: alarm.deviceId, "alarm", alarm.id))
        }
    }

    private func operate(_ call: AppCall, id: String, _ operation: DeviceEmulator.AlarmOperation) {
        let ids = AppCall.LogIDs("alarm", id)
        guard call.jsonObject(.optional, allowing: [], ids) != nil else { return }
        let principal = call.principal
        call.commit(context.service, ids: ids, in: .alarm(id)) { emulator, now throws(EmulatorError) in
            try principal.require(emulator.alarms[id]?.deviceId, else: .notFound("alarm", id))
            return try emulator.operateAlarm(id: id, operation, at: now)
        } success: { alarm in
            (200, alarm.json, .init(device: alarm.deviceId, "alarm", id))
        }
    }

    private func get(_ call: AppCall, id: String) {
        call.read(context.service, ids: .init("alarm", id), in: .alarm(id)) { emulator throws(EmulatorError) in
            try call.principal.require(emulator.alarms[id]?.deviceId, else: .notFound("alarm", id))
            let alarm = try emulator.alarm(id)
            return (alarm.json, .init(device: alarm.deviceId, "alarm", id))
        }
    }

    private func list(_ call: AppCall) {
        guard let query = call.query(allowing: ["deviceId"]), let scope = call.listScope(query["deviceId"]) else {
            return
        }
        call.readItems(context.service, ids: .init(device: scope.deviceId), in: scope.deviceId.map(StateScope.device)) {
            emulator in
            emulator.listAlarms(deviceId: scope.deviceId).map(\.id)
        } item: { emulator, id in
            emulator.alarms[id]?.json
        }
    }
}
