import RelayCore
import RelayJSON
import RelayNet

/// `/v1/devices`: emulated phones, their per-app settings and push-to-start tokens.
///
/// - `POST /v1/devices` `{name?, model?}` (admin only) → `201 {deviceId, deviceKey, createdAt, name, model}`;
///   only the key's hash is kept.
/// - `GET /v1/devices` → `{"items": [device]}` (a device key sees only its own device).
/// - `GET /v1/devices/{deviceId}` → the device.
/// - `GET /v1/devices/{deviceId}/timeline?family=&until=` → the device's widget timeline
///   (`WidgetTimeline.json`); `family` defaults to `systemMedium`, `until` (Unix seconds) to 8 h on.
/// - `PUT|GET /v1/devices/{deviceId}/apps/{bundleId}` → `{deviceId, bundleId, liveActivitiesEnabled,
///   frequentPushesEnabled, alarmAuthorization}`; `PUT` changes the members it carries.
/// - `POST /v1/devices/{deviceId}/apps/{bundleId}/push-to-start-tokens` `{attributesType}` →
///   `201 {token, ...}` when issued, `200` with the same token when it already was.
struct DeviceRoutes: RouteGroup {
    let context: AppContext

    func owns(_ path: String) -> Bool { AppContext.segments(path, resource: "devices") != nil }

    func handle(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        let segments = AppContext.segments(request.request.path, resource: "devices") ?? []
        switch segments.count {
        case 0:
            context.dispatch(
                request,
                [AppEndpoint("GET", "app.device.list", list), AppEndpoint("POST", "app.device.create", create)],
                respond: respond)
        case 1:
            context.dispatch(
                request, [AppEndpoint("GET", "app.device.get") { get($0, id: segments[0]) }], respond: respond)
        case 2 where segments[1] == "timeline":
            let id = segments[0]
            context.dispatch(
                request, [AppEndpoint("GET", "app.device.timeline") { timeline($0, deviceId: id) }], respond: respond)
        case 3 where segments[1] == "apps":
            let (id, bundleId) = (segments[0], segments[2])
            context.dispatch(
                request,
                [
                    AppEndpoint("GET", "app.settings.get") { settings($0, deviceId: id, bundleId: bundleId) },
                    AppEndpoint("PUT", "app.settings.put") { changeSettings($0, deviceId: id, bundleId: bundleId) },
                ], respond: respond)
        case 4 where segments[1] == "apps" && segments[3] == "push-to-start-tokens":
            let (id, bundleId) = (segments[0], segments[2])
            context.dispatch(
                request,
                [
                    AppEndpoint("POST", "app.pushToStart.token") {
                        pushToStartToken($0, deviceId: id, bundleId: bundleId)
                    }
                ],
                respond: respond)
        default:
            context.notFound(request, respond: respond)
        }
    }

    private func create(_ call: AppCall) {
        guard !call.forbiddenUnlessAdmin("creating a device"),
            let members = call.jsonObject(.optional, allowing: ["name", "model"])
        else {
            return
        }
        let name: String?
        let model: String?
        do {
            name = try DeviceLabel.parse(members["name"], key: "name")
            model = try DeviceLabel.parse(members["model"], key: "model")
        } catch {
            call.fail(error, .init())
            return
        }
        let key: DeviceKey
        do {
            key = try DeviceKey.generate()
        } catch {
            call.fail(EmulatorError(status: 500, code: "internalError", message: "no device key: \(error)"), .init())
            return
        }
        let auth = context.auth
        let hash = key.hash
        let secret = key.secret
        call.commit(context.service, ids: .init(), in: StateScope.none) { emulator, now in
            emulator.createDevice(keyHash: hash, name: name, model: model, at: now)
        } success: { device in
            auth.remember(deviceId: device.id, keyHash: hash)
            let body: JSONValue = [
                "deviceId": .string(device.id), "deviceKey": .string(secret), "createdAt": .number(device.createdAt),
                "name": .optional(device.name.map(JSONValue.string)),
                "model": .optional(device.model.map(JSONValue.string)),
            ]
            return (201, body, .init(device: device.id))
        }
    }

    private func list(_ call: AppCall) {
        guard call.query(allowing: []) != nil else { return }
        call.readItems(context.service, ids: .init(), in: call.principal.deviceId.map(StateScope.device)) { emulator in
            emulator.devices.values.filter { call.principal.reaches($0.id) }.sorted { $0.createdAt < $1.createdAt }
                .map(\.id)
        } item: { emulator, id in
            emulator.devices[id]?.json
        }
    }

    private func get(_ call: AppCall, id: String) {
        let ids = AppCall.LogIDs(device: id)
        call.read(context.service, ids: ids, in: .device(id)) { emulator throws(EmulatorError) in
            try call.principal.require(emulator.devices[id]?.id, else: .notFound("device", id))
            return (try emulator.device(id).json, ids)
        }
    }

    private func timeline(_ call: AppCall, deviceId: String) {
        let ids = AppCall.LogIDs(device: deviceId)
        guard let query = call.query(allowing: ["family", "until"]) else { return }
        var family = WidgetFamily.systemMedium
        if let name = query["family"] {
            guard let chosen = WidgetFamily(rawValue: name) else {
                let known = WidgetFamily.allCases.map(\.rawValue).joined(separator: ", ")
                call.fail(.invalid("family '\(name.prefix(40))' is not a widget family (\(known))"), ids)
                return
            }
            family = chosen
        }
        var until: UnixSeconds?
        if let text = query["until"] {
            guard let seconds = Double(text), seconds.isFinite else {
                call.fail(.invalid("until '\(text.prefix(40))' is not Unix seconds"), ids)
                return
            }
            until = seconds
        }
        // The projection is taken from the device; its entries are made after.
        let clock = context.service.clock
        let (chosenFamily, horizon) = (family, until)
        context.service.read(
            in: .device(deviceId),
            { emulator in
                Result { () throws(EmulatorError) -> (WidgetProjection, UnixSeconds) in
                    try call.principal.require(emulator.devices[deviceId]?.id, else: .notFound("device", deviceId))
                    return (try emulator.widgetProjection(deviceId: deviceId), clock.now())
                }
            },
            completion: { outcome in
                switch outcome {
                case .failure(let error): call.fail(error, ids)
                case .success(let taken):
                    do throws(EmulatorError) {
                        let (projection, now) = try taken.get()
                        call.answer(
                            200, try projection.timeline(family: chosenFamily, until: horizon, at: now).json, ids)
                    } catch {
                        call.fail(error, ids)
                    }
                }
            })
    }

    private func settings(_ call: AppCall, deviceId: String, bundleId: String) {
        let ids = AppCall.LogIDs(device: deviceId, "bundle", bundleId)
        call.read(context.service, ids: ids, in: .device(deviceId)) { emulator throws(EmulatorError) in
            try call.principal.require(emulator.devices[deviceId]?.id, else: .notFound("device", deviceId))
            try BundleID.validate(bundleId)
            let settings = try emulator.device(deviceId).settings(bundleId)
            return (Self.settingsJSON(settings, deviceId: deviceId, bundleId: bundleId), ids)
        }
    }

    private func changeSettings(_ call: AppCall, deviceId: String, bundleId: String) {
        let ids = AppCall.LogIDs(device: deviceId, "bundle", bundleId)
        guard let members = call.jsonObject(.required, ids) else { return }
        let principal = call.principal
        call.commit(context.service, ids: ids, in: .device(deviceId)) { emulator, now throws(EmulatorError) in
            try principal.require(emulator.devices[deviceId]?.id, else: .notFound("device", deviceId))
            return try emulator.updateAppSettings(
                deviceId: deviceId, bundleId: bundleId, body: .object(members), at: now)
        } success: { settings in
            (200, Self.settingsJSON(settings, deviceId: deviceId, bundleId: bundleId), ids)
        }
    }

    private func pushToStartToken(_ call: AppCall, deviceId: String, bundleId: String) {
        let ids = AppCall.LogIDs(device: deviceId, "bundle", bundleId)
        guard let members = call.jsonObject(.required, allowing: ["attributesType"], ids) else { return }
        guard let attributesType = members["attributesType"]?.stringValue else {
            call.fail(.invalid("attributesType: is required (a string, the ActivityAttributes type name)"), ids)
            return
        }
        let principal = call.principal
        call.commit(context.service, ids: ids, in: .device(deviceId)) { emulator, now throws(EmulatorError) in
            try principal.require(emulator.devices[deviceId]?.id, else: .notFound("device", deviceId))
            let existed = emulator.devices[deviceId]?.pushToStartTokens.contains {
                $0.bundleId == bundleId && $0.attributesType == attributesType
            }
            let token = try emulator.pushToStartToken(
                deviceId: deviceId, bundleId: bundleId, attributesType: attributesType, at: now)
            return (token, existed == true)
        } success: { (token, existed) in
            (existed ? 200 : 201, token.json, ids)
        }
    }

    /// The settings of one app with the ids they belong to.
    static func settingsJSON(_ settings: AppSettings, deviceId: String, bundleId: String) -> JSONValue {
        var members = settings.json.objectValue ?? [:]
        members["deviceId"] = .string(deviceId)
        members["bundleId"] = .string(bundleId)
        return .object(members)
    }
}
