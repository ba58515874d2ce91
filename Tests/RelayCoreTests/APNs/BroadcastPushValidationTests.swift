import RelayCore
import RelayJSON
import XCTest

final class BroadcastPushValidationTests: XCTestCase {
    private static let channel = "dHN0LXNyY2gtY2hubA=="

    private func headers(_ changes: [String: String?] = [:], extra: [(String, String)] = []) -> APNsHeaderFields {
        var fields: [String: String] = [
            "apns-channel-id": Self.channel, "apns-push-type": "LiveActivity", "apns-priority": "10",
            "authorization": "bearer x",
        ]
        for (name, value) in changes { fields[name] = value }
        return APNsHeaderFields(
            fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } + extra.map { ($0.0, $0.1) })
    }

    private func validate(
        method: String = "POST", path: String = "/4/broadcasts/apps/com.example.app",
        headers: APNsHeaderFields? = nil, body: [UInt8]? = Array("{}".utf8), json: JSONValue? = sampleUpdate,
        authorize: (String?, String) -> APNsError? = { _, _ in nil },
        policy: MessageStoragePolicy? = .mostRecentMessageStored
    ) -> Result<BroadcastPushRequest, APNsError> {
        BroadcastPushRequest.validate(
            method: method, path: path, headers: headers ?? self.headers(), body: body,
            parseJSON: parser(returning: json),
            authorize: authorize, storagePolicy: { _, _ in policy })
    }

    func testValidBroadcast() throws {
        let request = try validate(
            headers: headers([
                "apns-request-id": "123e4567-e89b-12d3-a456-4266554400a0", "apns-expiration": "1700000000",
            ])
        ).get()
        XCTAssertEqual(request.bundleID, "com.example.app")
        XCTAssertEqual(request.channelID.rawValue, Self.channel)
        XCTAssertEqual(request.priority, .immediate)
        XCTAssertEqual(request.expiration?.rawValue, 1_700_000_000)
        XCTAssertEqual(request.requestID?.rawValue, "123e4567-e89b-12d3-a456-4266554400a0")
        XCTAssertEqual(request.storagePolicy, .mostRecentMessageStored)
        XCTAssertEqual(request.payload.event, .update)
    }

    func testEachFaultGetsItsReason() {
        let cases: [(String, Result<BroadcastPushRequest, APNsError>, APNsReason)] = [
            ("GET", validate(method: "GET"), .methodNotAllowed),
            ("path", validate(path: "/4/broadcasts/apps/"), .badPath),
            ("path extra", validate(path: "/4/broadcasts/apps/com.example.app/x"), .badPath),
            ("bad bundle", validate(path: "/4/broadcasts/apps/com..app"), .badPath),
            ("suffix", validate(path: "/4/broadcasts/apps/com.example.app.push-type.liveactivity"), .topicDisallowed),
            ("auth", validate(authorize: { _, _ in APNsError(.topicMismatch, "x") }), .topicMismatch),
            ("duplicate", validate(headers: headers(extra: [("apns-priority", "5")])), .duplicateHeaders),
            ("no channel", validate(headers: headers(["apns-channel-id": nil])), .missingChannelId),
            ("bad channel", validate(headers: headers(["apns-channel-id": "not base64!"])), .badChannelId),
            ("empty channel", validate(headers: headers(["apns-channel-id": ""])), .badChannelId),
            ("no push type", validate(headers: headers(["apns-push-type": nil])), .missingPushType),
            ("alert push type", validate(headers: headers(["apns-push-type": "alert"])), .invalidPushType),
            ("request id", validate(headers: headers(["apns-request-id": "x"])), .badMessageId),
            ("apns-id", validate(headers: headers(["apns-id": "x"])), .badMessageId),
            ("expiration", validate(headers: headers(["apns-expiration": "tomorrow"])), .badExpirationDate),
            ("no priority", validate(headers: headers(["apns-priority": nil])), .badPriority),
            ("bad priority", validate(headers: headers(["apns-priority": "3"])), .badPriority),
            ("unknown channel", validate(policy: nil), .channelNotRegistered),
            (
                "expiration on policy 0",
                validate(headers: headers(["apns-expiration": "1700000000"]), policy: .noMessageStored),
                .badExpirationDate
            ),
            ("empty", validate(body: []), .payloadEmpty),
            ("too large", validate(body: [UInt8](repeating: 32, count: 5121)), .payloadTooLarge),
            ("not JSON", validate(json: nil), .badRequestPayload),
            ("no aps", validate(json: ["x": 1]), .badRequestPayload),
            ("start", validate(json: ["aps": ["event": "start", "timestamp": 1]]), .badRequestPayload),
        ]
        for (name, result, expected) in cases {
            XCTAssertEqual(reason(result), expected, name)
        }
    }

    func testBoundariesAndLeniency() {
        let cases: [(String, Result<BroadcastPushRequest, APNsError>)] = [
            ("5120 bytes", validate(body: [UInt8](repeating: 32, count: 5120))),
            ("lowercase push type", validate(headers: headers(["apns-push-type": "liveactivity"]))),
            ("Liveactivity", validate(headers: headers(["apns-push-type": "Liveactivity"]))),
            ("no expiration on policy 0", validate(policy: .noMessageStored)),
            (
                "zero expiration on policy 0",
                validate(headers: headers(["apns-expiration": "0"]), policy: .noMessageStored)
            ),
            ("end", validate(json: ["aps": ["event": "end", "timestamp": 1, "content-state": [:]]])),
        ]
        for (name, result) in cases {
            XCTAssertNil(reason(result), name)
        }
    }

    func testFirstFailingCheckWins() {
        let cases: [(String, Result<BroadcastPushRequest, APNsError>, APNsReason)] = [
            (
                "channel before push type",
                validate(headers: headers(["apns-channel-id": nil, "apns-push-type": nil])), .missingChannelId
            ),
            (
                "push type before expiration",
                validate(headers: headers(["apns-push-type": nil, "apns-expiration": "x"])), .missingPushType
            ),
            (
                "expiration before priority",
                validate(headers: headers(["apns-expiration": "x", "apns-priority": nil])), .badExpirationDate
            ),
            (
                "priority before channel lookup", validate(headers: headers(["apns-priority": "2"]), policy: nil),
                .badPriority
            ),
            ("channel lookup before body", validate(body: [], policy: nil), .channelNotRegistered),
            (
                "path before auth",
                validate(path: "/4/x", authorize: { _, _ in APNsError(.missingProviderToken, "x") }), .badPath
            ),
        ]
        for (name, result, expected) in cases {
            XCTAssertEqual(reason(result), expected, name)
        }
    }

    func testAuthorizeSeesHeaderAndBundle() {
        var seen: (String?, String)?
        _ = validate(authorize: {
            seen = ($0, $1)
            return nil
        })
        XCTAssertEqual(seen?.0, "bearer x")
        XCTAssertEqual(seen?.1, "com.example.app")
    }

    func testChannelIDs() {
        let id = BroadcastChannelID(randomBytes: Array(0..<16))
        XCTAssertEqual(id.rawValue.count, 24)
        XCTAssertEqual(try BroadcastChannelID.parse(id.rawValue).get(), id)
        XCTAssertEqual(reason(BroadcastChannelID.parse(String(repeating: "A", count: 260))), .badChannelId)
    }
}
