import RelayCore

/// `/v1/faults` (admin only): injected provider-API failures for testing a backend's retries
/// (CONTRACT section 5, "Faults"; the rule shape is `FaultRule.parse`'s).
///
/// - `GET /v1/faults` → `{"seed", "items": [rule]}`, each rule with its `id`, what is left of its
///   `count`, and how many pushes it `matched` and `injected`.
/// - `POST /v1/faults` `{rule}` → `201` with the rule, `id` included; `409 tooManyFaults` past
///   `FaultPlan.maxRules`.
/// - `DELETE /v1/faults/{id}` → `200` with the remaining list, `404` for an unknown id.
/// - `DELETE /v1/faults` → `200` with the (empty) list.
struct FaultRoutes: RouteGroup {
    let context: AppContext
    let faults: FaultInjector

    func owns(_ path: String) -> Bool { AppContext.segments(path, resource: "faults") != nil }

    func handle(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        let segments = AppContext.segments(request.request.path, resource: "faults") ?? []
        switch segments.count {
        case 0:
            context.dispatch(
                request,
                [
                    AppEndpoint("GET", "app.faults.list", list), AppEndpoint("POST", "app.faults.add", add),
                    AppEndpoint("DELETE", "app.faults.clear", clear),
                ], respond: respond)
        case 1:
            let id = segments[0]
            context.dispatch(
                request, [AppEndpoint("DELETE", "app.faults.remove") { remove($0, id: id) }], respond: respond)
        default:
            context.notFound(request, respond: respond)
        }
    }

    private func list(_ call: AppCall) {
        guard !call.forbiddenUnlessAdmin("reading fault rules"), call.query(allowing: []) != nil else { return }
        call.answer(200, faults.json, .init())
    }

    private func add(_ call: AppCall) {
        guard !call.forbiddenUnlessAdmin("injecting faults"), let members = call.jsonObject(.required) else { return }
        let rule: FaultRule?
        do {
            rule = try faults.add(json: .object(members))
        } catch {
            call.fail(.invalid(error), .init())
            return
        }
        guard let rule else {
            call.fail(
                EmulatorError(
                    status: 409, code: "tooManyFaults",
                    message: "at most \(FaultPlan.maxRules) fault rules at once; DELETE /v1/faults/{id} first"),
                .init())
            return
        }
        RelayLog.info("fault.added", ["id": rule.id, "kind": rule.action.kind])
        call.answer(201, rule.json, .init(device: nil, "fault", rule.id))
    }

    private func remove(_ call: AppCall, id: String) {
        guard !call.forbiddenUnlessAdmin("removing fault rules"), call.query(allowing: []) != nil else { return }
        guard faults.remove(id) else {
            call.fail(.notFound("fault rule", id), .init(device: nil, "fault", id))
            return
        }
        call.answer(200, faults.json, .init(device: nil, "fault", id))
    }

    private func clear(_ call: AppCall) {
        guard !call.forbiddenUnlessAdmin("removing fault rules"), call.query(allowing: []) != nil else { return }
        faults.removeAll()
        call.answer(200, faults.json, .init())
    }
}
