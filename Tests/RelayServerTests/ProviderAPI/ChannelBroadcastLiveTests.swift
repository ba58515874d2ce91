import Foundation
import RelayCore
import XCTest

/// Channel management and broadcast pushes through the live relay: the success shapes, what the
/// subscribed activities do, and every reason these paths can answer.
final class ChannelBroadcastLiveTests: XCTestCase {
    private var provider: ProviderRelay!
    private static let requestID = "0a1b2c3d-4e5f-4a6b-9c7d-8e9f0a1b2c3d"

    override func setUpWithError() throws { provider = try ProviderRelay() }

    override func tearDown() {
        provider?.stop()
        provider = nil
    }

    private func channels(
        _ bundle: String = ProviderRelay.bundle, method: String, jwt: String, channel: String? = nil,
        body: String? = nil,
        path: String? = nil, extra: [(String, String)] = []
    ) -> H2Request {
        var headers = [("authorization", "bearer \(jwt)")] + extra
        if let channel { headers.append(("apns-channel-id", channel)) }
        return H2Request(method: method, path: path ?? "/1/apps/\(bundle)/channels", headers: headers, body: body)
    }

    private func broadcast(
        _ bundle: String = ProviderRelay.bundle, jwt: String, channel: String?, replacing: [String: String?] = [:],
        body: String? = nil
    ) -> H2Request {
        var headers: [(String, String)] = [
            ("authorization", "bearer \(jwt)"), ("apns-push-type", "LiveActivity"), ("apns-priority", "10"),
        ]
        if let channel { headers.append(("apns-channel-id", channel)) }
        for (name, value) in replacing {
            headers.removeAll { $0.0 == name }
            if let value { headers.append((name, value)) }
        }
        let update =
            #"{"aps":{"event":"update","timestamp":\#(ProviderRelay.now(minus: -1)),"content-state":{"score":"2-1"}}}"#
        return H2Request(path: "/4/broadcasts/apps/\(bundle)", headers: headers, body: body ?? update)
    }

    private static let createBody = #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#

    func testChannelLifecycleAndABroadcastReachingItsSubscribers() throws {
        let jwt = try provider.devToken()
        let created = try XCTUnwrap(
            try provider.h2([
                [
                    "requests": [
                        channels(
                            method: "POST", jwt: jwt, body: Self.createBody,
                            extra: [("apns-request-id", Self.requestID)]
                        ).json
                    ]
                ]
            ]).first?.answers.first)
        XCTAssertEqual(created.status, 201)
        XCTAssertEqual(created.body, "")
        XCTAssertEqual(created.headers["apns-request-id"], Self.requestID)
        let channel = try XCTUnwrap(created.headers["apns-channel-id"])

        let device = try provider.makeDevice()
        let subscriber = try provider.startActivity(deviceId: device.id, channel: channel)

        let answers = try XCTUnwrap(
            try provider.h2([
                [
                    "requests": [
                        channels(method: "GET", jwt: jwt, channel: channel).json,
                        channels(method: "GET", jwt: jwt, path: "/1/apps/\(ProviderRelay.bundle)/all-channels").json,
                        broadcast(jwt: jwt, channel: channel, replacing: ["apns-request-id": Self.requestID]).json,
                        channels(method: "DELETE", jwt: jwt, channel: channel).json,
                        channels(method: "GET", jwt: jwt, channel: channel).json,
                    ]
                ]
            ]).first?.answers)
        XCTAssertEqual(answers.map(\.status), [200, 200, 200, 204, 400])
        XCTAssertEqual(answers[0].json?["message-storage-policy"] as? Int, 1)
        XCTAssertEqual(answers[0].json?["push-type"] as? String, "LiveActivity")
        XCTAssertEqual(answers[1].json?["channels"] as? [String], [channel])
        XCTAssertEqual(answers[2].headers["apns-request-id"], Self.requestID)
        XCTAssertNotNil(answers[2].headers["apns-unique-id"])
        XCTAssertEqual(answers[2].body, "")
        XCTAssertNotNil(answers[3].headers["apns-request-id"], "a generated request id when none was sent")
        XCTAssertEqual(answers[4].reason, "ChannelNotRegistered")

        XCTAssertEqual(try provider.activity(subscriber.id)["contentState"], ["score": "2-1"])
        let logged = try XCTUnwrap(
            try provider.pushLog("channelId=\(channel.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
                .first)
        XCTAssertEqual(logged["outcome"] as? String, "broadcast")
        XCTAssertEqual(logged["apnsId"] as? String, Self.requestID)
    }

    /// An app without the Broadcast Capability (config `broadcastBundleIds`) gets
    /// `400 FeatureNotEnabled` on every channel operation and on broadcasts; an app with it works,
    /// and a token that may not push to the app still gets its own reason first.
    func testAppsWithoutTheBroadcastCapabilityGetFeatureNotEnabled() throws {
        provider.stop()
        let enabled = "com.example.broadcaster"
        provider = try ProviderRelay { $0.routeSettings.broadcastBundleIDs = .only([enabled]) }
        let jwt = try provider.devToken()
        let answers = try XCTUnwrap(
            try provider.h2([
                [
                    "requests": [
                        channels(method: "POST", jwt: jwt, body: Self.createBody).json,
                        channels(method: "GET", jwt: jwt, channel: "dHN0LXNyY2gtY2hubA==").json,
                        channels(method: "DELETE", jwt: jwt, channel: "dHN0LXNyY2gtY2hubA==").json,
                        channels(method: "GET", jwt: jwt, path: "/1/apps/\(ProviderRelay.bundle)/all-channels").json,
                        broadcast(jwt: jwt, channel: "dHN0LXNyY2gtY2hubA==").json,
                        channels(enabled, method: "POST", jwt: jwt, body: Self.createBody).json,
                        channels(method: "POST", jwt: "not.a.token", body: Self.createBody).json,
                    ]
                ]
            ]).first?.answers)
        XCTAssertEqual(answers.map(\.status), [400, 400, 400, 400, 400, 201, 403])
        XCTAssertEqual(
            answers.map { $0.reason ?? "-" },
            Array(repeating: "FeatureNotEnabled", count: 5) + ["-", "InvalidProviderToken"])
    }

    func testEveryChannelAndBroadcastReason() throws {
        let jwt = try provider.devToken()
        let policy0 = try provider.perform { emulator, now in
            (try? emulator.createChannel(bundleId: ProviderRelay.bundle, policy: .noMessageStored, at: now).get())?.id
        }
        let channel = try XCTUnwrap(policy0)
        _ = try provider.perform { emulator, now in
            for _ in 0..<BroadcastChannel.maxChannelsPerApp {
                _ = emulator.createChannel(bundleId: "com.example.full", policy: .noMessageStored, at: now)
            }
        }
        let unknown = "AAAAAAAAAAAAAAAAAAAAAA=="
        let start =
            #"{"aps":{"event":"start","timestamp":1,"attributes-type":"A","attributes":{},"content-state":{},"alert":{"title":"t"}}}"#
        let rows: [(String, H2Request, Int, String)] = [
            ("MissingChannelId (read)", channels(method: "GET", jwt: jwt), 400, "MissingChannelId"),
            ("BadChannelId (read)", channels(method: "GET", jwt: jwt, channel: "not base64!"), 400, "BadChannelId"),
            (
                "ChannelNotRegistered (delete)", channels(method: "DELETE", jwt: jwt, channel: unknown), 400,
                "ChannelNotRegistered"
            ),
            (
                "CannotCreateChannelConfig",
                channels("com.example.full", method: "POST", jwt: jwt, body: Self.createBody), 400,
                "CannotCreateChannelConfig"
            ),
            (
                "MissingChannelQueueSize", channels(method: "POST", jwt: jwt, body: #"{"push-type":"LiveActivity"}"#),
                400,
                "MissingChannelQueueSize"
            ),
            (
                "MissingPushType (create)", channels(method: "POST", jwt: jwt, body: #"{"message-storage-policy":0}"#),
                400,
                "MissingPushType"
            ),
            (
                "InvalidPushType (create)",
                channels(method: "POST", jwt: jwt, body: #"{"message-storage-policy":0,"push-type":"Alert"}"#), 400,
                "InvalidPushType"
            ),
            ("PayloadEmpty (create)", channels(method: "POST", jwt: jwt), 400, "PayloadEmpty"),
            ("BadRequestPayload (create)", channels(method: "POST", jwt: jwt, body: "[1]"), 400, "BadRequestPayload"),
            (
                "BadMessageId (request id)",
                channels(method: "GET", jwt: jwt, channel: channel, extra: [("apns-request-id", "x")]),
                400, "BadMessageId"
            ),
            (
                "MethodNotAllowed (all-channels)",
                channels(method: "POST", jwt: jwt, path: "/1/apps/\(ProviderRelay.bundle)/all-channels"), 405,
                "MethodNotAllowed"
            ),
            ("BadPath (channels)", channels(method: "GET", jwt: jwt, path: "/1/apps/x/nothing"), 404, "BadPath"),
            (
                "TopicDisallowed (suffix in path)",
                channels("com.example.app.push-type.liveactivity", method: "GET", jwt: jwt, channel: channel), 400,
                "TopicDisallowed"
            ),
            ("MissingChannelId (broadcast)", broadcast(jwt: jwt, channel: nil), 400, "MissingChannelId"),
            ("BadChannelId (broadcast)", broadcast(jwt: jwt, channel: "%%%"), 400, "BadChannelId"),
            ("ChannelNotRegistered (broadcast)", broadcast(jwt: jwt, channel: unknown), 400, "ChannelNotRegistered"),
            (
                "MissingPushType (broadcast)",
                broadcast(jwt: jwt, channel: channel, replacing: ["apns-push-type": nil]), 400,
                "MissingPushType"
            ),
            (
                "InvalidPushType (broadcast)",
                broadcast(jwt: jwt, channel: channel, replacing: ["apns-push-type": "alert"]),
                400, "InvalidPushType"
            ),
            (
                "BadPriority (broadcast, missing)",
                broadcast(jwt: jwt, channel: channel, replacing: ["apns-priority": nil]),
                400, "BadPriority"
            ),
            (
                "BadExpirationDate (policy 0)",
                broadcast(jwt: jwt, channel: channel, replacing: ["apns-expiration": "4102444800"]), 400,
                "BadExpirationDate"
            ),
            ("PayloadEmpty (broadcast)", broadcast(jwt: jwt, channel: channel, body: ""), 400, "PayloadEmpty"),
            (
                "PayloadTooLarge (broadcast)",
                {
                    var r = broadcast(jwt: jwt, channel: channel)
                    r.bodyBytes = 5121
                    return r
                }(), 413, "PayloadTooLarge"
            ),
            (
                "BadRequestPayload (broadcast start)", broadcast(jwt: jwt, channel: channel, body: start), 400,
                "BadRequestPayload"
            ),
            (
                "MethodNotAllowed (broadcast)",
                {
                    var r = broadcast(jwt: jwt, channel: channel)
                    r.method = "GET"
                    return r
                }(),
                405, "MethodNotAllowed"
            ),
            (
                "TopicDisallowed (broadcast suffix)",
                broadcast("com.example.app.push-type.liveactivity", jwt: jwt, channel: channel), 400, "TopicDisallowed"
            ),
        ]
        let keyRows: [(String, H2Request, Int, String)] = [
            (
                "TopicMismatch (key may not use the app)",
                channels(method: "GET", jwt: try provider.limitedToken(), channel: channel), 403, "TopicMismatch"
            ),
            (
                "MissingProviderToken (broadcast)",
                broadcast(jwt: "", channel: channel, replacing: ["authorization": nil]),
                403, "MissingProviderToken"
            ),
        ]
        let results = try provider.h2([
            ["requests": rows.map(\.1.json)], ["requests": keyRows.map(\.1.json)],
        ])
        for (rowsOfConnection, result) in zip([rows, keyRows], results) {
            XCTAssertEqual(result.answers.count, rowsOfConnection.count)
            for ((name, _, status, reason), answer) in zip(rowsOfConnection, result.answers) {
                XCTAssertEqual(answer.status, status, "\(name): \(answer.body)")
                XCTAssertEqual(answer.reason, reason, name)
                XCTAssertEqual(answer.headers["content-type"], "application/json", name)
                XCTAssertNotNil(answer.headers["apns-request-id"], name)
            }
        }
        // Refused broadcasts are in the push log too, filed under their channel.
        let logged = try provider.pushLog("bundleId=\(ProviderRelay.bundle)&limit=1000")
        XCTAssertTrue(
            logged.contains { $0["reason"] as? String == "BadExpirationDate" && $0["channelId"] as? String == channel })
    }
}
