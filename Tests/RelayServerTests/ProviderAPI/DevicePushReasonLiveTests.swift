import Foundation
import RelayCore
import XCTest

/// Every reason `POST /3/device/{token}` can answer, provoked through the live relay over
/// HTTP/2 with requests written byte for byte (python `h2`), one table row per reason.
final class DevicePushReasonLiveTests: XCTestCase {
    private var provider: ProviderRelay!

    override func setUpWithError() throws { provider = try ProviderRelay() }

    override func tearDown() {
        provider?.stop()
        provider = nil
    }

    /// A row: the request, the status and reason it must get.
    private struct Row {
        var name: String
        var request: H2Request
        var status: Int
        var reason: String?
    }

    private func update(_ timestamp: Int64 = ProviderRelay.now(minus: 0)) -> String {
        #"{"aps":{"event":"update","timestamp":\#(timestamp),"content-state":{"status":"on its way"}}}"#
    }

    /// A push to `token` with the usual headers, `replacing` some (a nil value removes one).
    private func push(
        _ token: String, jwt: String, replacing: [String: String?] = [:], adding: [(String, String)] = [],
        body: String? = nil, method: String = "POST", path: String? = nil
    ) -> H2Request {
        var headers: [(String, String)] = [
            ("apns-topic", ProviderRelay.topic), ("apns-push-type", "liveactivity"), ("apns-priority", "10"),
            ("authorization", "bearer \(jwt)"),
        ]
        for (name, value) in replacing {
            headers.removeAll { $0.0 == name }
            if let value { headers.append((name, value)) }
        }
        return H2Request(
            method: method, path: path ?? "/3/device/\(token)", headers: headers + adding, body: body ?? update())
    }

    func testEveryDevicePushReasonOverTheLiveRelay() throws {
        let device = try provider.makeDevice()
        let active = try provider.startActivity(deviceId: device.id)
        let burst = try provider.startActivity(deviceId: device.id)
        let ended = try provider.startActivity(deviceId: device.id)
        let endedAt = try provider.endActivity(ended.id)["endedAt"]?.doubleValue
        let other = try provider.startActivity(deviceId: device.id, bundle: "com.example.other")
        let token = try XCTUnwrap(active.token)
        let jwt = try provider.devToken()
        let apnsID = "6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
        let unknownToken = String(repeating: "ab", count: 32)

        let rows: [Row] = [
            Row(name: "accepted", request: push(token, jwt: jwt, adding: [("apns-id", apnsID)]), status: 200),
            Row(
                name: "BadDeviceToken (not hex)", request: push("zz-not-hex", jwt: jwt), status: 400,
                reason: "BadDeviceToken"),
            Row(
                name: "BadDeviceToken (unknown)", request: push(unknownToken, jwt: jwt), status: 400,
                reason: "BadDeviceToken"),
            Row(name: "MissingDeviceToken", request: push("", jwt: jwt), status: 400, reason: "MissingDeviceToken"),
            Row(
                name: "DeviceTokenNotForTopic", request: push(try XCTUnwrap(other.token), jwt: jwt), status: 400,
                reason: "DeviceTokenNotForTopic"),
            Row(
                name: "TopicDisallowed (no suffix)",
                request: push(token, jwt: jwt, replacing: ["apns-topic": ProviderRelay.bundle]),
                status: 400, reason: "TopicDisallowed"),
            Row(
                name: "BadTopic", request: push(token, jwt: jwt, replacing: ["apns-topic": "not a topic!"]),
                status: 400,
                reason: "BadTopic"),
            Row(
                name: "MissingTopic", request: push(token, jwt: jwt, replacing: ["apns-topic": nil]), status: 400,
                reason: "MissingTopic"),
            Row(
                name: "InvalidPushType", request: push(token, jwt: jwt, replacing: ["apns-push-type": "alert"]),
                status: 400,
                reason: "InvalidPushType"),
            Row(
                name: "BadMessageId", request: push(token, jwt: jwt, adding: [("apns-id", "not-a-uuid")]), status: 400,
                reason: "BadMessageId"),
            Row(
                name: "BadPriority", request: push(token, jwt: jwt, replacing: ["apns-priority": "7"]), status: 400,
                reason: "BadPriority"),
            Row(
                name: "BadExpirationDate", request: push(token, jwt: jwt, adding: [("apns-expiration", "tomorrow")]),
                status: 400, reason: "BadExpirationDate"),
            Row(
                name: "BadCollapseId",
                request: push(token, jwt: jwt, adding: [("apns-collapse-id", String(repeating: "c", count: 65))]),
                status: 400, reason: "BadCollapseId"),
            Row(
                name: "DuplicateHeaders", request: push(token, jwt: jwt, adding: [("apns-priority", "5")]), status: 400,
                reason: "DuplicateHeaders"),
            Row(name: "PayloadEmpty", request: push(token, jwt: jwt, body: ""), status: 400, reason: "PayloadEmpty"),
            Row(
                name: "PayloadTooLarge",
                request: {
                    var r = push(token, jwt: jwt)
                    r.bodyBytes = 4097
                    return r
                }(),
                status: 413, reason: "PayloadTooLarge"),
            Row(
                name: "PayloadTooLarge (over the listener limit)",
                request: {
                    var r = push(token, jwt: jwt, adding: [("content-length", "70000")])
                    r.bodyBytes = 70_000
                    return r
                }(), status: 413,
                reason: "PayloadTooLarge"),
            Row(
                name: "BadRequestPayload", request: push(token, jwt: jwt, body: "{not json"), status: 400,
                reason: "BadRequestPayload"),
            Row(
                name: "MethodNotAllowed", request: push(token, jwt: jwt, method: "GET"), status: 405,
                reason: "MethodNotAllowed"),
            Row(
                name: "BadPath", request: push(token, jwt: jwt, path: "/3/devices/\(token)"), status: 404,
                reason: "BadPath"),
            Row(
                name: "Unregistered", request: push(try XCTUnwrap(ended.token), jwt: jwt), status: 410,
                reason: "Unregistered"),
        ]
        var burstPush = push(try XCTUnwrap(burst.token), jwt: jwt, replacing: ["apns-priority": "5"])
        burstPush.repeatCount = 25
        let results = try provider.h2([["requests": rows.map(\.request.json) + [burstPush.json]]])
        let answers = try XCTUnwrap(results.first).answers
        XCTAssertEqual(answers.count, rows.count + 25)

        for (row, answer) in zip(rows, answers) {
            XCTAssertEqual(answer.status, row.status, "\(row.name): \(answer.body)")
            XCTAssertNotNil(answer.headers["apns-id"], row.name)
            if let reason = row.reason {
                XCTAssertEqual(answer.reason, reason, row.name)
                XCTAssertEqual(answer.headers["content-type"], "application/json", row.name)
                XCTAssertNil(answer.headers["apns-unique-id"], row.name)
            } else {
                XCTAssertEqual(answer.body, "", row.name)
                XCTAssertEqual(answer.headers["apns-id"], apnsID, "the apns-id sent is echoed")
                XCTAssertNotNil(answer.headers["apns-unique-id"], row.name)
            }
        }
        // A generated apns-id is a lowercase UUID.
        let generated = try XCTUnwrap(answers[1].headers["apns-id"])
        XCTAssertEqual(generated, generated.lowercased())
        XCTAssertEqual(generated.count, 36)

        // 410 carries the end time in milliseconds.
        let unregistered = try XCTUnwrap(answers[rows.count - 1].json)
        let millis = try XCTUnwrap(unregistered["timestamp"] as? Int64)
        XCTAssertEqual(Double(millis), (try XCTUnwrap(endedAt) * 1000).rounded(.down), accuracy: 1)
        XCTAssertEqual(Set(unregistered.keys), ["reason", "timestamp"])

        // The burst: the token's first 20 are accepted, then 429 TooManyRequests.
        let burstAnswers = answers.suffix(25)
        XCTAssertEqual(burstAnswers.prefix(20).filter { $0.status == 200 }.count, 20)
        XCTAssertTrue(burstAnswers.contains { $0.status == 429 && $0.reason == "TooManyRequests" })

        // Every push, refused or not, is in the push log, newest first.
        let log = try provider.pushLog("limit=1000")
        XCTAssertEqual(log.count, rows.count + 25)
        let reasons = Set(log.compactMap { $0["reason"] as? String })
        for row in rows { if let reason = row.reason { XCTAssertTrue(reasons.contains(reason), reason) } }
        XCTAssertEqual(log.last?["apnsId"] as? String, apnsID, "the oldest entry is the first push")
        // The refusal's message, kept as its parts by the emulator, is written out in the log.
        let refused = try XCTUnwrap(log.first { $0["reason"] as? String == "Unregistered" })
        XCTAssertEqual(
            refused["hint"] as? String,
            "activity \(ended.id) ended at \(UTCDate.format(try XCTUnwrap(endedAt))); its token is no longer valid")
    }

    func testTopicOfABundleTheKeyMayNotPushToIsTopicDisallowed() throws {
        let device = try provider.makeDevice()
        let active = try provider.startActivity(deviceId: device.id)
        let results = try provider.h2([
            ["requests": [push(try XCTUnwrap(active.token), jwt: try provider.limitedToken()).json]]
        ])
        let answer = try XCTUnwrap(results.first?.answers.first)
        XCTAssertEqual(answer.status, 400)
        XCTAssertEqual(answer.reason, "TopicDisallowed")
    }
}
