import Foundation
import RelayCore
import RelayJSON
import RelayNet
import RelayServer
import RelayStore
import RelayTestKit
import XCTest

/// A live relay set up as `activity-relay serve` sets itself up: a data directory prepared by
/// `DataDirectory.prepare` (certificate, admin key, development provider key) and the keyring
/// built from it, plus two test keys: `LIMITKEY01` of the development team, allowed only
/// `com.example.allowed`, and `OTHERKEY01` of team `OTHERTEAM1`. `stop()` removes the data directory.
final class ProviderRelay {
    static let bundle = "com.example.app"
    static let topic = "com.example.app.push-type.liveactivity"
    static let limitedKeyID = "LIMITKEY01"
    static let otherKeyID = "OTHERKEY01"
    static let otherTeamID = "OTHERTEAM1"

    let relay: LiveRelay
    let data: DataDirectory
    let limitedKey: P256PrivateKey
    let otherKey: P256PrivateKey
    var service: RelayService { relay.runtime.service }
    var port: UInt16 { relay.port }
    var caPath: String { relay.caPath }
    var devKeyPath: String { data.file(DataDirectory.devProviderKeyFileName) }

    init(configure: (inout RelayRuntime.Options) -> Void = { _ in }) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("provider-\(UUID().uuidString)").path
        var configuration = RelayConfiguration(workingDirectory: "/")
        configuration.dataDirectory = path
        data = try DataDirectory.prepare(configuration)
        limitedKey = try P256PrivateKey()
        otherKey = try P256PrivateKey()
        let keyring = ProviderKeyring(keys: [
            .init(
                teamID: DataDirectory.devTeamID, keyID: DataDirectory.devKeyID,
                publicKey: try data.devProviderKey.publicKey, bundleIDs: .any),
            .init(
                teamID: DataDirectory.devTeamID, keyID: Self.limitedKeyID, publicKey: try limitedKey.publicKey,
                bundleIDs: .only(["com.example.allowed"])),
            .init(teamID: Self.otherTeamID, keyID: Self.otherKeyID, publicKey: try otherKey.publicKey, bundleIDs: .any),
        ])
        let settings = RouteSettings(adminKey: data.adminKey, keyring: keyring)
        relay = try LiveRelay(directory: URL(fileURLWithPath: path)) { options in
            options.routeSettings = settings
            configure(&options)
        }
    }

    func stop() {
        relay.stop()
        try? FileManager.default.removeItem(at: relay.directory)
    }

    // MARK: - Tokens

    /// A development-key token issued `age` seconds ago.
    func devToken(age: Double = 0) throws -> String {
        try JWTSigner.makeProviderToken(
            teamID: DataDirectory.devTeamID, keyID: DataDirectory.devKeyID, issuedAt: Self.now(minus: age),
            key: data.devProviderKey)
    }

    /// A token of `LIMITKEY01` (development team, only `com.example.allowed`).
    func limitedToken() throws -> String {
        try JWTSigner.makeProviderToken(
            teamID: DataDirectory.devTeamID, keyID: Self.limitedKeyID, issuedAt: Self.now(minus: 0), key: limitedKey)
    }

    /// A token of `OTHERKEY01` (team `OTHERTEAM1`).
    func otherTeamToken() throws -> String {
        try JWTSigner.makeProviderToken(
            teamID: Self.otherTeamID, keyID: Self.otherKeyID, issuedAt: Self.now(minus: 0), key: otherKey)
    }

    static func now(minus age: Double) -> Int64 { Int64(Date().timeIntervalSince1970 - age) }

    // MARK: - Device state, through the app API

    /// The app API over curl with the admin key.
    var app: AppAPIClient { AppAPIClient(base: relay.base, caPath: caPath, key: data.adminKey.secret) }

    /// Runs `command` on the service and waits until it is durable (for state the app API cannot
    /// make quickly, such as 10,000 channels).
    func perform<T: Sendable>(_ command: @escaping (inout DeviceEmulator, UnixSeconds) -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let box = Box<Result<T, StoreError>>()
        service.perform(command) { result in
            box.value = result
            done.signal()
        }
        guard done.wait(timeout: .now() + 30) == .success, let result = box.value else {
            throw NSError(domain: "ProviderRelay", code: 1, userInfo: [NSLocalizedDescriptionKey: "perform timed out"])
        }
        return try result.get()
    }

    /// `POST /v1/devices`: the new device's id and key.
    func makeDevice() throws -> (id: String, key: String) {
        let device = try app.expect(201, "POST", "/v1/devices")
        return (try XCTUnwrap(device["deviceId"]?.stringValue), try XCTUnwrap(device["deviceKey"]?.stringValue))
    }

    /// `POST /v1/activities` with `pushType` `"token"` (or a channel): its id and update token.
    func startActivity(deviceId: String, bundle: String = ProviderRelay.bundle, channel: String? = nil) throws -> (
        id: String, token: String?
    ) {
        let pushType: JSONValue = channel.map { ["channel": .string($0)] } ?? "token"
        let activity = try app.expect(
            201, "POST", "/v1/activities",
            json: [
                "deviceId": .string(deviceId), "bundleId": .string(bundle), "attributesType": "DeliveryAttributes",
                "attributes": ["order": "42"], "contentState": ["status": "preparing"], "pushType": pushType,
            ])
        return (try XCTUnwrap(activity["id"]?.stringValue), activity["pushToken"]?.stringValue)
    }

    /// `POST /v1/activities/{id}/end`: the activity as ended.
    func endActivity(_ id: String) throws -> JSONValue {
        try app.expect(200, "POST", "/v1/activities/\(id)/end", json: ["dismissalPolicy": "default"])
    }

    /// `POST /v1/devices/{id}/apps/{bundle}/push-to-start-tokens` for `DeliveryAttributes`.
    func pushToStartToken(deviceId: String) throws -> String {
        let token = try app.expect(
            201, "POST", "/v1/devices/\(deviceId)/apps/\(Self.bundle)/push-to-start-tokens",
            json: ["attributesType": "DeliveryAttributes"])
        return try XCTUnwrap(token["token"]?.stringValue)
    }

    /// `POST /1/apps/{bundle}/channels` through the provider API: the new channel's id.
    func createChannel(policy: Int = 0) throws -> String {
        let request = H2Request(
            path: "/1/apps/\(Self.bundle)/channels", headers: [("authorization", "bearer \(try devToken())")],
            body: #"{"message-storage-policy":\#(policy),"push-type":"LiveActivity"}"#)
        let answer = try XCTUnwrap(try h2([["requests": [request.json]]]).first?.answers.first)
        XCTAssertEqual(answer.status, 201, answer.body)
        return try XCTUnwrap(answer.headers["apns-channel-id"])
    }

    /// `GET /v1/activities/{id}`.
    func activity(_ id: String) throws -> JSONValue {
        try app.expect(200, "GET", "/v1/activities/\(id)")
    }

    // MARK: - Clients

    /// Runs `provider_h2.py` with `connections` and returns one result per connection.
    func h2(_ connections: [[String: Any]]) throws -> [H2Result] {
        let input = try writeInput(["connections": connections])
        let outcome = try ChildProcess.run(
            ["python3", Fixtures.path("provider_h2.py"), "--port", String(port), "--cafile", caPath, "--input", input],
            timeout: 120)
        guard outcome.status == 0, let data = outcome.stdout.data(using: .utf8),
            let list = try JSONSerialization.jsonObject(with: data) as? [[String: Any]]
        else {
            throw NSError(
                domain: "ProviderRelay", code: 2,
                userInfo: [NSLocalizedDescriptionKey: "provider_h2.py failed: \(outcome.stdout) \(outcome.stderr)"])
        }
        return list.map(H2Result.init)
    }

    /// Writes `object` as JSON to a file in the data directory; its path.
    func writeInput(_ object: Any) throws -> String {
        let path = data.file("input-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// `GET /v1/pushes?query` with `key` (the admin key by default), over curl; the items.
    func pushLog(_ query: String, key: String? = nil) throws -> [[String: Any]] {
        let outcome = try relay.curl([
            "--http2", "-H", "authorization: bearer \(key ?? data.adminKey.secret)", "\(relay.base)/v1/pushes?\(query)",
        ])
        guard let data = outcome.stdout.data(using: .utf8),
            let body = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let items = body["items"] as? [[String: Any]]
        else {
            throw NSError(
                domain: "ProviderRelay", code: 3,
                userInfo: [NSLocalizedDescriptionKey: "push log answer: \(outcome.stdout) \(outcome.stderr)"])
        }
        return items
    }
}

/// What `provider_h2.py` saw on one connection.
struct H2Result {
    struct Answer {
        var status: Int?
        var headers: [String: String]
        var body: String
        var reset: Int?

        /// `reason` of a JSON error body.
        var reason: String? {
            guard let data = body.data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return nil }
            return object["reason"] as? String
        }

        /// The whole JSON body as an object.
        var json: [String: Any]? {
            guard let data = body.data(using: .utf8) else { return nil }
            return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        }
    }

    var answers: [Answer]
    var goaway: (code: Int, data: String)?
    var closed: Bool

    init(_ object: [String: Any]) {
        answers = (object["responses"] as? [[String: Any]] ?? []).map { answer in
            Answer(
                status: answer["status"] as? Int, headers: answer["headers"] as? [String: String] ?? [:],
                body: answer["body"] as? String ?? "", reset: answer["reset"] as? Int)
        }
        if let goaway = object["goaway"] as? [String: Any] {
            self.goaway = (goaway["code"] as? Int ?? -1, goaway["data"] as? String ?? "")
        }
        closed = object["closed"] as? Bool ?? false
    }
}

/// A request for `provider_h2.py`.
struct H2Request {
    var method = "POST"
    var path: String
    var headers: [(String, String)] = []
    var body: String?
    var bodyBytes: Int?
    var repeatCount = 1

    var json: [String: Any] {
        var object: [String: Any] = [
            "method": method, "path": path, "headers": headers.map { [$0.0, $0.1] }, "repeat": repeatCount,
        ]
        if let body { object["body"] = body }
        if let bodyBytes { object["bodyBytes"] = bodyBytes }
        return object
    }
}

/// A mutable slot a completion fills on another thread (read after a semaphore).
final class Box<T>: @unchecked Sendable {  // Sendable: written before the signal, read after the wait
    var value: T?
}
