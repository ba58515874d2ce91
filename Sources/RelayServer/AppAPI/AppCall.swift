import RelayCore
import RelayHTTP
import RelayJSON
import RelayStore

/// One authenticated app-API request on its way to an answer. Every answer goes through
/// `answer`, which writes the request's one log line (event, connection, caller, the ids the
/// request touched, status, and the error code when it failed).
struct AppCall: Sendable {
    let request: HTTPRequest
    let bodyTooLarge: Bool
    let connection: UInt64
    let principal: AppPrincipal
    let event: String
    private let respond: @Sendable (ServerResponse) -> Void

    init(
        request: ServerRequest, principal: AppPrincipal, event: String,
        respond: @escaping @Sendable (ServerResponse) -> Void
    ) {
        self.request = request.request
        bodyTooLarge = request.bodyTooLarge
        connection = request.context.id
        self.principal = principal
        self.event = event
        self.respond = respond
    }

    /// The ids a log line carries: the device, and the object the request is about.
    struct LogIDs: Sendable {
        var device: String?
        var subject: (key: String, id: String)?

        init(device: String? = nil, _ subjectKey: String? = nil, _ subjectId: String? = nil) {
            self.device = device
            if let subjectKey, let subjectId { subject = (subjectKey, subjectId) }
        }
    }

    // MARK: - Answers

    /// Answers `status` with `body` and logs it.
    func answer(_ status: Int, _ body: JSONValue, _ ids: LogIDs, headers: [(String, String)] = []) {
        log(status: status, ids: ids, error: nil)
        respond(.full(JSONResponse.make(status, body, headers: headers)))
    }

    /// Answers an emulator refusal and logs it with its code.
    func fail(_ error: EmulatorError, _ ids: LogIDs) {
        log(status: error.status, ids: ids, error: error.code)
        respond(.full(JSONResponse.error(error)))
    }

    /// Answers `500` for a commit that failed (the change is not acknowledged).
    func fail(_ error: StoreError, _ ids: LogIDs) {
        fail(EmulatorError(status: 500, code: "storeFailed", message: "the change could not be saved: \(error)"), ids)
    }

    /// `403` for a request only the admin key may make.
    func forbiddenUnlessAdmin(_ what: String) -> Bool {
        guard principal != .admin else { return false }
        fail(.forbidden("adminOnly", "\(what) needs the admin key; a device key reaches only its own device"), LogIDs())
        return true
    }

    // MARK: - Writes

    /// Runs `command` through `RelayService.perform` and answers once it is durable: with the
    /// status, JSON and log ids `success` makes of the result, or with the command's error. `ids`
    /// are the log ids known before the command runs (used when it fails). `scope` names the
    /// device the command works on, which cluster mode loads. `joining`: the broadcast channel
    /// the command may start an activity on.
    func commit<T: Sendable>(
        _ service: RelayService, ids: LogIDs, in scope: StateScope, joining channel: JoinedChannel? = nil,
        _ command: @escaping @Sendable (inout DeviceEmulator, UnixSeconds) throws(EmulatorError) -> T,
        success: @escaping @Sendable (T) -> (status: Int, body: JSONValue, ids: LogIDs)
    ) {
        service.perform(
            in: scope, joining: channel,
            { emulator, now in
                Result { () throws(EmulatorError) -> T in try command(&emulator, now) }
            },
            completion: { outcome in
                switch outcome {
                case .failure(let error): fail(error, ids)
                case .success(.failure(let error)): fail(error, ids)
                case .success(.success(let value)):
                    let made = success(value)
                    answer(made.status, made.body, made.ids)
                }
            })
    }

    /// Answers `200` with what `query` reads from the device `scope` names, or its error.
    func read(
        _ service: RelayService, ids: LogIDs, in scope: StateScope,
        _ query: @escaping @Sendable (DeviceEmulator) throws(EmulatorError) -> (JSONValue, LogIDs)
    ) {
        service.read(
            in: scope,
            { emulator in Result { () throws(EmulatorError) -> (JSONValue, LogIDs) in try query(emulator) } },
            completion: { outcome in
                switch outcome {
                case .failure(let error): fail(error, ids)
                case .success(.success(let (body, found))): answer(200, body, found)
                case .success(.failure(let error)): fail(error, ids)
                }
            })
    }

    /// Answers `200` with `{"items": [...]}`, made a page at a time as the peer reads
    /// (`JSONItemPages`): `keys` takes the items' keys from the emulator now, `item` renders one
    /// from the emulator as it is when its page is made (nil when it is gone).
    /// In cluster mode the device `scope` names, or every device when it names none, is loaded
    /// once and the pages are made from that copy.
    func readItems(
        _ service: RelayService, ids: LogIDs, in scope: StateScope?,
        keys: @escaping @Sendable (DeviceEmulator) -> [String],
        item: @escaping @Sendable (DeviceEmulator, String) -> JSONValue?
    ) {
        if service.cluster != nil {
            let copy: @Sendable (DeviceEmulator) -> ([String], DeviceEmulator) = { emulator in
                (keys(emulator), emulator)
            }
            let made: @Sendable (Result<([String], DeviceEmulator), StoreError>) -> Void = { outcome in
                switch outcome {
                case .failure(let error): fail(error, ids)
                case .success(let (listed, device)):
                    let pages = JSONItemPages(keys: listed) { slice in slice.compactMap { item(device, $0) } }
                    log(status: 200, ids: ids, error: nil)
                    respond(.paged(JSONResponse.make(200, .null).head, pages))
                }
            }
            if let scope {
                service.read(in: scope, copy, completion: made)
            } else {
                service.readFleet(copy, completion: made)
            }
            return
        }
        let listed = service.read(keys)
        let pages = JSONItemPages(keys: listed) { slice in
            service.read { emulator in slice.compactMap { item(emulator, $0) } }
        }
        log(status: 200, ids: ids, error: nil)
        respond(.paged(JSONResponse.make(200, .null).head, pages))
    }

    // MARK: - Log line

    private func log(status: Int, ids: LogIDs, error: String?) {
        let level: RelayLog.Level = status >= 500 ? .error : .info
        guard RelayLog.enabled(level) else { return }
        let conn = String(connection)
        let device = ids.device ?? principal.deviceId ?? "-"
        let code = String(status)
        switch (ids.subject, error) {
        case (let subject?, let error?):
            RelayLog.log(
                level, event,
                [
                    "conn": conn, "by": principal.label, "device": device, subject.key: subject.id, "status": code,
                    "error": error,
                ])
        case (let subject?, nil):
            RelayLog.log(
                level, event,
                ["conn": conn, "by": principal.label, "device": device, subject.key: subject.id, "status": code])
        case (nil, let error?):
            RelayLog.log(
                level, event, ["conn": conn, "by": principal.label, "device": device, "status": code, "error": error])
        case (nil, nil):
            RelayLog.log(level, event, ["conn": conn, "by": principal.label, "device": device, "status": code])
        }
    }
}
