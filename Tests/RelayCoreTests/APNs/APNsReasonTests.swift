import RelayCore
import XCTest

final class APNsReasonTests: XCTestCase {
    /// Apple's status for every reason string (apns-facts §3–4).
    static let statuses: [String: Int] = [
        "BadCollapseId": 400, "BadDeviceToken": 400, "BadExpirationDate": 400, "BadMessageId": 400,
        "BadPriority": 400, "BadTopic": 400, "DeviceTokenNotForTopic": 400, "DuplicateHeaders": 400,
        "IdleTimeout": 400, "InvalidPushType": 400, "MissingDeviceToken": 400, "MissingTopic": 400,
        "PayloadEmpty": 400, "TopicDisallowed": 400, "FeatureNotEnabled": 400, "MissingChannelId": 400,
        "BadChannelId": 400, "ChannelNotRegistered": 400, "BadRequestParams": 400, "BadRequestPayload": 400,
        "MissingPushType": 400, "CannotCreateChannelConfig": 400, "MissingChannelQueueSize": 400,
        "BadCertificate": 403, "BadCertificateEnvironment": 403, "ExpiredProviderToken": 403, "Forbidden": 403,
        "InvalidProviderToken": 403, "MissingProviderToken": 403, "UnrelatedKeyIdInToken": 403,
        "BadEnvironmentKeyIdInToken": 403, "TopicMismatch": 403, "BadPath": 404, "MethodNotAllowed": 405,
        "ExpiredToken": 410, "Unregistered": 410, "PayloadTooLarge": 413, "TooManyProviderTokenUpdates": 429,
        "TooManyRequests": 429, "InternalServerError": 500, "ServiceUnavailable": 503,
        "Service Unavailable": 503, "Shutdown": 503,
    ]

    func testEveryReasonHasApplesStatus() {
        XCTAssertEqual(Set(APNsReason.allKnown.map(\.rawValue)), Set(Self.statuses.keys))
        XCTAssertEqual(APNsReason.allKnown.count, Self.statuses.count, "duplicate in allKnown")
        for reason in APNsReason.allKnown {
            XCTAssertEqual(reason.status, Self.statuses[reason.rawValue], reason.rawValue)
            XCTAssertEqual(APNsError(reason, "m").status, reason.status)
        }
    }

    func testUnknownReasonRoundTripsAsBadRequest() {
        let reason = APNsReason(rawValue: "SomethingNew")
        XCTAssertEqual(reason.rawValue, "SomethingNew")
        XCTAssertEqual(reason.status, 400)
        XCTAssertEqual(APNsError(reason, "m").jsonBody, ["reason": "SomethingNew"])
    }

    func testJSONBodyCarriesOnlyTheReason() {
        XCTAssertEqual(APNsError(.badDeviceToken, "bad").jsonBody, ["reason": "BadDeviceToken"])
    }

    func testGoneCarriesTimestampInMilliseconds() {
        let error = APNsError(.unregistered, "ended", timestamp: 1_700_000_000.2345)
        XCTAssertEqual(error.status, 410)
        XCTAssertEqual(error.jsonBody, ["reason": "Unregistered", "timestamp": .int(1_700_000_000_234)])
        XCTAssertEqual(APNsError(.unregistered, "ended").jsonBody, ["reason": "Unregistered"])
        XCTAssertEqual(
            APNsError(.badTopic, "x", timestamp: 5).jsonBody, ["reason": "BadTopic"], "timestamp only with 410")
    }

    func testWireValuesRoundTrip() {
        XCTAssertEqual(APNsPushType(rawValue: "voip"), .voip)
        XCTAssertEqual(APNsPriority(rawValue: 5), .powerConsiderate)
        XCTAssertEqual(LiveActivityEvent(rawValue: "pause").rawValue, "pause")
        XCTAssertFalse(LiveActivityEvent(rawValue: "pause").isKnown)
        XCTAssertTrue(APNsPushType(rawValue: "LiveActivity").isLiveActivityIgnoringCase)
        XCTAssertFalse(APNsPushType(rawValue: "liveactivit").isLiveActivityIgnoringCase)
    }

    func testEventsCompareByValue() {
        let known: [LiveActivityEvent] = [.start, .update, .end]
        for (i, left) in known.enumerated() {
            XCTAssertTrue(left.isKnown)
            for (j, right) in known.enumerated() {
                XCTAssertEqual(left == right, i == j, "\(left) == \(right)")
            }
            // Read from text, as a payload's `event` is.
            let read = LiveActivityEvent(rawValue: String(decoding: Array(left.rawValue.utf8), as: UTF8.self))
            XCTAssertEqual(read, left)
            XCTAssertEqual(read.hashValue, left.hashValue)
        }
        let unknown = ["pause", "Start", "UPDATE", "ends", "en", "", "start "].map(LiveActivityEvent.init(rawValue:))
        for event in unknown {
            XCTAssertFalse(event.isKnown, event.rawValue)
            for other in known { XCTAssertNotEqual(event, other, event.rawValue) }
            XCTAssertEqual(event, LiveActivityEvent(rawValue: event.rawValue))
        }
        XCTAssertNotEqual(LiveActivityEvent(rawValue: "pause"), LiveActivityEvent(rawValue: "stop"))
        XCTAssertEqual(Set(known + known).count, 3)
    }

    func testPriorityHeaderAcceptsOnlyTenFiveOne() {
        XCTAssertEqual(APNsPriority(header: "10"), .immediate)
        XCTAssertEqual(APNsPriority(header: "5"), .powerConsiderate)
        XCTAssertEqual(APNsPriority(header: "1"), .low)
        for bad in ["", "0", "3", "05", "+5", " 5", "10.0", "high"] {
            XCTAssertNil(APNsPriority(header: bad), bad)
        }
        XCTAssertEqual(APNsPriority.default, .immediate)
    }
}
