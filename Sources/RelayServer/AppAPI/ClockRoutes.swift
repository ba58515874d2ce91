import RelayCore
import RelayJSON

/// `/v1/clock`: the relay's clock.
///
/// - `GET /v1/clock` → `{now, mode, rate}` (any key).
/// - `POST /v1/clock` (admin only, virtual mode) with exactly one of `{"advanceBy": seconds}`,
///   `{"set": unixSeconds}`, `{"rate": multiplier}` → `200 {now, mode, rate}` once every timed
///   transition on the way has fired (in order, each with its own timestamp) and the clock and
///   those transitions are durable. Backwards → `409 clockBackwards`; on the system clock →
///   `409 systemClock`; a negative, non-finite or out-of-range amount → `400`.
struct ClockRoutes: RouteGroup {
    let context: AppContext

    func owns(_ path: String) -> Bool { AppContext.segments(path, resource: "clock") != nil }

    func handle(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        guard AppContext.segments(request.request.path, resource: "clock")?.isEmpty == true else {
            context.notFound(request, respond: respond)
            return
        }
        context.dispatch(
            request, [AppEndpoint("GET", "app.clock.get", get), AppEndpoint("POST", "app.clock.change", change)],
            respond: respond)
    }

    /// A requested change of the virtual clock.
    enum Change {
        case advance(Double)
        case set(UnixSeconds)
        case rate(Double)
    }

    private func get(_ call: AppCall) {
        guard call.query(allowing: []) != nil else { return }
        let clock = context.service.clock.json
        call.answer(200, clock, Self.logIDs(clock))
    }

    private func change(_ call: AppCall) {
        guard !call.forbiddenUnlessAdmin("moving the clock") else { return }
        guard let members = call.jsonObject(.required, allowing: ["advanceBy", "set", "rate"]) else { return }
        let change: Change
        switch Self.change(members) {
        case .success(let parsed): change = parsed
        case .failure(let error):
            call.fail(error, .init())
            return
        }
        let move = { (clock: inout VirtualClock, real: UnixSeconds) throws(ClockError) in
            switch change {
            case .advance(let seconds): try clock.advance(by: seconds, real: real)
            case .set(let time): try clock.set(time, real: real)
            case .rate(let rate): try clock.setRate(rate, real: real)
            }
        }
        context.service.changeClock(move) { result in
            switch result {
            case .success(let clock):
                call.answer(200, clock, Self.logIDs(clock))
            case .failure(.notVirtual):
                call.fail(
                    EmulatorError(
                        status: 409, code: "systemClock",
                        message:
                            "the relay runs on the system clock, which cannot be moved; start it with --clock virtual"),
                    .init())
            case .failure(.clock(let error)):
                call.fail(Self.error(error), .init())
            case .failure(.store(let error)):
                call.fail(error, .init())
            }
        }
    }

    /// The clock's reading for the log line.
    static func logIDs(_ clock: JSONValue) -> AppCall.LogIDs {
        AppCall.LogIDs(device: nil, "now", clock["now"]?.doubleValue.map { String($0) } ?? "-")
    }

    /// The change a body asks for: exactly one of its three members, a number.
    static func change(_ members: JSONObject) -> Result<Change, EmulatorError> {
        guard members.count == 1, let (key, value) = members.first else {
            return .failure(
                .invalid("send exactly one of advanceBy (seconds), set (Unix seconds) or rate (multiplier)"))
        }
        guard let number = value.doubleValue else {
            return .failure(.invalid("\(key): must be a number, not \(value.typeName)"))
        }
        switch key {
        case "advanceBy": return .success(.advance(number))
        case "set": return .success(.set(number))
        default: return .success(.rate(number))
        }
    }

    /// The API error for a refused clock change.
    static func error(_ error: ClockError) -> EmulatorError {
        switch error {
        case .backwards(let now, _):
            return EmulatorError(
                status: 409, code: "clockBackwards", message: error.description, extra: ["now": .number(now)])
        case .invalidAdvance, .invalidRate, .outOfRange:
            return .invalid(error.description)
        }
    }
}
