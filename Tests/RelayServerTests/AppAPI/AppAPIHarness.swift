import Foundation
import RelayCore
import RelayHTTP
import RelayJSON
import RelayServer
import XCTest

/// The app API in-process: a `RelayService` on a temporary data directory behind the default
/// routes, driven by `ServerRequest`s with no socket. `close()` removes the directory when the
/// harness made it, never one the caller passed in.
final class AppAPIHarness {
    static let adminKey = "admin-key-for-app-api-tests"

    let service: RelayService
    let router: Router
    let directory: URL
    private let ownsDirectory: Bool

    /// A response as a test reads it.
    struct Reply {
        var status: Int
        var headers: HTTPHeaders
        var json: JSONValue

        subscript(key: String) -> JSONValue? { json[key] }
        var error: String? { json["error"]?.stringValue }
    }

    init(clock: RelayTimeSource.Mode = .virtual, directory: URL? = nil) throws {
        ownsDirectory = directory == nil
        let directory =
            directory
            ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("app-api-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
        service = try RelayService.open(
            path: directory.appendingPathComponent("relay.sqlite").path, rules: .defaults, clockMode: clock,
            ids: SecureIdentifiers())
        router = Router(
            groups: DefaultRoutes.all(
                service: service,
                settings: RouteSettings(adminKey: AdminKey(Self.adminKey)!, keyring: ProviderKeyring(keys: []))))
    }

    func close() {
        service.store.writer.flush()
        service.store.close()
        if ownsDirectory { try? FileManager.default.removeItem(at: directory) }
    }

    /// Sends one request and waits for its answer. `body` is raw bytes; `json` is serialized.
    func send(
        _ method: String, _ target: String, key: String? = AppAPIHarness.adminKey, json: JSONValue? = nil,
        body: [UInt8]? = nil, headers: [(String, String)] = [], bodyTooLarge: Bool = false,
        file: StaticString = #filePath, line: UInt = #line
    ) -> Reply {
        var fields = HTTPHeaders(headers)
        if let key { fields.add("authorization", "Bearer \(key)") }
        let (path, query) = HTTPRequest.splitTarget(target)
        let request = HTTPRequest(
            method: method, path: path, query: query, headers: fields, body: body ?? json?.serialized() ?? [])
        let box = ReplyBox()
        router.handle(ServerRequest(request: request, context: ConnectionContext(), bodyTooLarge: bodyTooLarge)) {
            box.put($0)
        }
        guard let response = box.wait() else {
            XCTFail("no answer to \(method) \(target)", file: file, line: line)
            return Reply(status: 0, headers: HTTPHeaders(), json: .null)
        }
        let json = (try? JSONValue(parsing: response.body)) ?? .null
        return Reply(status: response.status, headers: response.headers, json: json)
    }

    // MARK: - Shortcuts

    /// Creates a device; returns its id and key.
    func createDevice(file: StaticString = #filePath, line: UInt = #line) -> (id: String, key: String) {
        let reply = send("POST", "/v1/devices", file: file, line: line)
        XCTAssertEqual(reply.status, 201, "\(reply.json)", file: file, line: line)
        return (reply["deviceId"]?.stringValue ?? "", reply["deviceKey"]?.stringValue ?? "")
    }

    /// A valid `POST /v1/activities` body.
    static func startBody(deviceId: String, bundleId: String = "com.example.delivery", extra: JSONObject = [:])
        -> JSONValue
    {
        var members: JSONObject = [
            "deviceId": .string(deviceId), "bundleId": .string(bundleId), "attributesType": "DeliveryAttributes",
            "attributes": ["orderId": "A-1"], "contentState": ["status": "preparing"],
        ]
        members = members.merging(extra)
        return .object(members)
    }

    /// Starts an activity; returns its id.
    func startActivity(deviceId: String, key: String = adminKey, extra: JSONObject = [:]) -> String {
        let reply = send("POST", "/v1/activities", key: key, json: Self.startBody(deviceId: deviceId, extra: extra))
        XCTAssertEqual(reply.status, 201, "\(reply.json)")
        return reply["id"]?.stringValue ?? ""
    }

    /// A valid `POST /v1/alarms` body: a ten-minute timer unless `extra` says otherwise.
    static func alarmBody(deviceId: String, bundleId: String = "com.example.wake", extra: JSONObject = [:])
        -> JSONValue
    {
        var members: JSONObject = [
            "deviceId": .string(deviceId), "bundleId": .string(bundleId),
            "presentation": ["alert": ["title": "Wake up", "stopButton": "Stop"], "countdown": ["title": "Soon"]],
            "countdownDuration": ["preAlert": 600],
        ]
        members = members.merging(extra)
        return .object(members)
    }

    /// The clock's current time.
    var now: UnixSeconds { service.clock.now() }

    /// Every stored event after `seq`, oldest first.
    func events(after seq: Int64 = 0) throws -> [StoredEventView] {
        try service.store.reader.events(after: seq, limit: 10_000).map {
            StoredEventView(seq: $0.seq, type: $0.type, at: $0.at, activityId: $0.activityId, alarmId: $0.alarmId)
        }
    }

    /// The parts of a stored event the tests compare.
    struct StoredEventView: Equatable {
        var seq: Int64
        var type: String
        var at: UnixSeconds
        var activityId: String?
        var alarmId: String?
    }
}

/// Hands a response from the thread that answers to the waiting test.
private final class ReplyBox: @unchecked Sendable {  // Sendable: `response` is guarded by `lock`.
    private let lock = NSCondition()
    private var response: HTTPResponse?

    func put(_ answer: ServerResponse) {
        let response: HTTPResponse
        switch answer {
        case .full(let full): response = full
        case .paged(let head, let pages):
            response = HTTPResponse(status: head.status, headers: head.headers, body: pages.wholeBody())
        case .stream: return
        }
        lock.lock()
        self.response = response
        lock.signal()
        lock.unlock()
    }

    func wait() -> HTTPResponse? {
        lock.lock()
        defer { lock.unlock() }
        let deadline = Date().addingTimeInterval(10)
        while response == nil && lock.wait(until: deadline) {}
        return response
    }
}

extension ResponsePages {
    /// Every page of the body, joined (empty when it failed).
    func wholeBody() -> [UInt8] {
        var body: [UInt8] = []
        while true {
            switch next() {
            case .more(let bytes): body += bytes
            case .last(let bytes): return body + bytes
            case .failed: return []
            }
        }
    }
}
