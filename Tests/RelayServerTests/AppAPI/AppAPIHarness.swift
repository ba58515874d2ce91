import Foundation
import RelayCore
import RelayHTTP
import RelayJSON
import RelayNet
import RelayRedis
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
    /// In cluster mode (`StoreUnderTest`), the loop requests are handled on (cluster mode serves
    /// them from event loops only); nil on SQLite.
    private let driver: EventLoop?

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
        let fresh = !FileManager.default.fileExists(atPath: directory.appendingPathComponent("relay.sqlite").path)
        let cluster = try StoreUnderTest.cluster(emptied: fresh)
        driver = cluster == nil ? nil : try EventLoop(name: "app-api-driver")
        service = try RelayService.open(
            path: directory.appendingPathComponent("relay.sqlite").path, rules: .defaults, clockMode: clock,
            ids: SecureIdentifiers(), cluster: cluster)
        router = Router(
            groups: DefaultRoutes.all(
                service: service,
                settings: RouteSettings(adminKey: AdminKey(Self.adminKey)!, keyring: ProviderKeyring(keys: []))))
    }

    func close() {
        if let driver {
            let service = service
            let done = DispatchSemaphore(value: 0)
            driver.execute {
                service.shutdownCluster()
                done.signal()
            }
            done.wait()
            driver.stop()
        }
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
        let router = router
        let handle: @Sendable () -> Void = {
            router.handle(ServerRequest(request: request, context: ConnectionContext(), bodyTooLarge: bodyTooLarge)) {
                box.put($0)
            }
        }
        if let driver { driver.execute(handle) } else { handle() }
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

    /// Every stored event after `seq`, oldest first: from the SQLite event log, or in cluster mode
    /// from the fleet feed, whose entry numbers play the part of the log's sequence numbers.
    func events(after seq: Int64 = 0) throws -> [StoredEventView] {
        guard let driver, let seeds = StoreUnderTest.clusterSeeds else {
            return try service.store.reader.events(after: seq, limit: 10_000).map {
                StoredEventView(seq: $0.seq, type: $0.type, at: $0.at, activityId: $0.activityId, alarmId: $0.alarmId)
            }
        }
        let client = RedisClusterClient(options: .init(seeds: seeds), loop: driver)
        defer {
            let done = DispatchSemaphore(value: 0)
            driver.execute {
                client.shutdown()
                done.signal()
            }
            done.wait()
        }
        let reply = try client.call(RedisCommand(["XRANGE", "{relay}:feed", "0-\(seq + 1)", "+"]))
        return try StreamReply.entries(reply, maxEntries: 10_000).map { entry in
            func text(_ field: String) -> String? {
                entry.value(of: field).map { String(decoding: $0, as: UTF8.self) }.flatMap { $0.isEmpty ? nil : $0 }
            }
            let data = try JSONValue(parsing: entry.value(of: "d") ?? [])
            return StoredEventView(
                seq: Int64(entry.id.sequence), type: text("t") ?? "", at: data["at"]?.doubleValue ?? .nan,
                activityId: text("a"), alarmId: text("l"))
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
