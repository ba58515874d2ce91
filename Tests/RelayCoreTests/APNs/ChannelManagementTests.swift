import RelayCore
import RelayJSON
import XCTest

final class ChannelManagementTests: XCTestCase {
    private static let channel = "dHN0LXNyY2gtY2hubA=="
    private static let createBody: JSONValue = ["message-storage-policy": 1, "push-type": "LiveActivity"]

    private func validate(
        _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
        json: JSONValue? = createBody, authorize: (String?, String) -> APNsError? = { _, _ in nil }
    ) -> Result<ChannelManagementRequest, APNsError> {
        ChannelManagementRequest.validate(
            method: method, path: path, headers: APNsHeaderFields(headers.map { ($0.0, $0.1) }), body: body,
            parseJSON: parser(returning: json), authorize: authorize)
    }

    private let create = Array("{}".utf8)

    func testOperations() throws {
        let created = try validate("POST", "/1/apps/com.example.app/channels", body: create).get()
        XCTAssertEqual(created.operation, .create(.mostRecentMessageStored))
        XCTAssertEqual(created.successStatus, 201)
        XCTAssertEqual(created.bundleID, "com.example.app")

        let read = try validate("GET", "/1/apps/com.example.app/channels", headers: [("apns-channel-id", Self.channel)])
            .get()
        XCTAssertEqual(read.operation, .read(BroadcastChannelID(rawValue: Self.channel)))
        XCTAssertEqual(read.successStatus, 200)

        let deleted = try validate(
            "DELETE", "/1/apps/com.example.app/channels",
            headers: [("apns-channel-id", Self.channel), ("apns-request-id", "123e4567-e89b-12d3-a456-4266554400a0")]
        ).get()
        XCTAssertEqual(deleted.operation, .delete(BroadcastChannelID(rawValue: Self.channel)))
        XCTAssertEqual(deleted.successStatus, 204)
        XCTAssertEqual(deleted.requestID?.rawValue, "123e4567-e89b-12d3-a456-4266554400a0")

        let list = try validate("GET", "/1/apps/com.example.app/all-channels").get()
        XCTAssertEqual(list.operation, .listAll)
        XCTAssertEqual(list.successStatus, 200)

        let policyZero = try validate(
            "POST", "/1/apps/com.example.app/channels", body: create,
            json: ["message-storage-policy": 0, "push-type": "liveactivity"]
        ).get()
        XCTAssertEqual(policyZero.operation, .create(.noMessageStored))
    }

    func testEachFaultGetsItsReason() {
        let path = "/1/apps/com.example.app/channels"
        let cases: [(String, Result<ChannelManagementRequest, APNsError>, APNsReason)] = [
            ("unknown path", validate("GET", "/1/apps/com.example.app"), .badPath),
            ("nested", validate("GET", "/1/apps/a/b/channels"), .badPath),
            ("no bundle", validate("GET", "/1/apps//channels"), .badPath),
            ("suffix", validate("GET", "/1/apps/com.example.app.push-type.liveactivity/channels"), .topicDisallowed),
            ("PUT", validate("PUT", path), .methodNotAllowed),
            ("POST all", validate("POST", "/1/apps/com.example.app/all-channels"), .methodNotAllowed),
            (
                "auth", validate("GET", path, authorize: { _, _ in APNsError(.invalidProviderToken, "x") }),
                .invalidProviderToken
            ),
            (
                "duplicate",
                validate("GET", path, headers: [("apns-channel-id", Self.channel), ("apns-channel-id", Self.channel)]),
                .duplicateHeaders
            ),
            (
                "request id",
                validate("GET", path, headers: [("apns-request-id", "nope"), ("apns-channel-id", Self.channel)]),
                .badMessageId
            ),
            ("read without id", validate("GET", path), .missingChannelId),
            ("delete bad id", validate("DELETE", path, headers: [("apns-channel-id", "#")]), .badChannelId),
            ("create empty", validate("POST", path), .payloadEmpty),
            ("create huge", validate("POST", path, body: [UInt8](repeating: 32, count: 1025)), .payloadTooLarge),
            ("create not JSON", validate("POST", path, body: create, json: nil), .badRequestPayload),
            ("create array", validate("POST", path, body: create, json: [1]), .badRequestPayload),
            (
                "no policy", validate("POST", path, body: create, json: ["push-type": "LiveActivity"]),
                .missingChannelQueueSize
            ),
            (
                "policy 2",
                validate("POST", path, body: create, json: ["message-storage-policy": 2, "push-type": "LiveActivity"]),
                .missingChannelQueueSize
            ),
            (
                "no push type", validate("POST", path, body: create, json: ["message-storage-policy": 0]),
                .missingPushType
            ),
            (
                "alert push type",
                validate("POST", path, body: create, json: ["message-storage-policy": 0, "push-type": "Alert"]),
                .invalidPushType
            ),
        ]
        for (name, result, expected) in cases {
            XCTAssertEqual(reason(result), expected, name)
        }
    }

    func testStoreRulesAndBodies() {
        XCTAssertNil(BroadcastChannel.checkCapacity(existingChannels: 9_999))
        XCTAssertEqual(BroadcastChannel.checkCapacity(existingChannels: 10_000)?.reason, .cannotCreateChannelConfig)
        let id = BroadcastChannelID(rawValue: Self.channel)
        XCTAssertEqual(BroadcastChannel.notRegistered(id, bundleID: "com.example.app").reason, .channelNotRegistered)
        XCTAssertEqual(
            BroadcastChannel(id: id, storagePolicy: .noMessageStored).readBody,
            ["message-storage-policy": 0, "push-type": "LiveActivity"])
        XCTAssertEqual(BroadcastChannel.listBody([id]), ["channels": [.string(Self.channel)]])
    }
}
