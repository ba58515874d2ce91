import RelayCore
import RelayJSON
import XCTest

final class LiveActivityPayloadTests: XCTestCase {
    private func parse(_ json: JSONValue) throws -> LiveActivityPayload {
        try LiveActivityPayload.parse(json).get()
    }

    func testStartPayload() throws {
        let payload = try parse([
            "aps": [
                "timestamp": 1_700_000_000, "event": "start", "content-state": ["score": 0],
                "attributes-type": "GameAttributes", "attributes": ["home": "A", "away": "B"],
                "alert": [
                    "title": "Kick-off", "body": ["loc-key": "KICKOFF", "loc-args": ["A", "B"]], "sound": "chime",
                ],
                "stale-date": 1_700_003_600, "relevance-score": 75.5, "input-push-token": 1,
                "input-push-channel": "dHN0LXNyY2gtY2hubA==",
            ],
            "gameId": "42",
        ])
        XCTAssertEqual(payload.event, .start)
        XCTAssertEqual(payload.timestamp, 1_700_000_000)
        XCTAssertEqual(payload.contentState, ["score": 0])
        XCTAssertEqual(payload.attributesType, "GameAttributes")
        XCTAssertEqual(payload.attributes, ["home": "A", "away": "B"])
        XCTAssertEqual(payload.alert?.title, .plain("Kick-off"))
        XCTAssertEqual(payload.alert?.body, .localized(key: "KICKOFF", arguments: ["A", "B"]))
        XCTAssertEqual(payload.alert?.sound, "chime")
        XCTAssertEqual(payload.staleDate, 1_700_003_600)
        XCTAssertEqual(payload.relevanceScore, 75.5)
        XCTAssertTrue(payload.inputPushToken)
        XCTAssertEqual(payload.inputPushChannel, "dHN0LXNyY2gtY2hubA==")
        XCTAssertEqual(payload.customKeys, ["gameId": "42"])
        XCTAssertEqual(payload.issues, [])
        XCTAssertEqual(payload.hints, [])
    }

    func testUpdateAndEndPayloads() throws {
        let update = try parse(sampleUpdate)
        XCTAssertEqual(update.event, .update)
        XCTAssertEqual(update.contentState?["score"], ["home": 1, "away": 0])
        XCTAssertEqual(update.issues, [])

        let end = try parse([
            "aps": [
                "timestamp": 1_700_000_100.5, "event": "end", "content-state": ["final": true], "dismissal-date": 0,
            ]
        ])
        XCTAssertEqual(end.event, .end)
        XCTAssertEqual(end.timestamp, 1_700_000_100.5)
        XCTAssertEqual(end.dismissalDate, 0)
        XCTAssertEqual(end.issues, [])
    }

    func testDeviceSideIssues() throws {
        let cases: [(JSONValue, [String], Bool)] = [
            (
                [
                    "aps": [
                        "timestamp": 1, "event": "start", "content-state": [:], "attributes-type": "T",
                        "attributes": [:],
                    ]
                ],
                ["startWithoutAlert"], true
            ),
            (
                ["aps": ["timestamp": 1, "event": "start", "alert": "hi"]],
                ["startWithoutAttributesType", "startWithoutAttributes", "missingContentState"], true
            ),
            (["aps": ["timestamp": 1, "event": "update"]], ["missingContentState"], true),
            (["aps": ["timestamp": 1, "event": "end"]], ["endWithoutContentState"], false),
            (["aps": ["event": "update", "content-state": [:]]], ["missingTimestamp"], true),
            (["aps": ["timestamp": 1, "event": "pause"]], ["unknownEvent"], true),
            (["aps": ["timestamp": 1, "event": "update", "content-state": nil]], ["missingContentState"], true),
        ]
        for (json, codes, drops) in cases {
            let payload = try parse(json)
            XCTAssertEqual(payload.issues.map(\.code), codes, "\(json)")
            XCTAssertEqual(payload.droppingIssue != nil, drops, "\(json)")
        }
    }

    func testTypeErrorsNameThePath() {
        let cases: [(JSONValue, String)] = [
            ("text", ""),
            (["other": 1], "aps"),
            (["aps": ["timestamp": 1]], "aps.event"),
            (["aps": ["event": "update", "stale-date": "tomorrow"]], "aps.stale-date"),
            (["aps": ["event": "update", "relevance-score": true]], "aps.relevance-score"),
            (["aps": ["event": "start", "attributes": "x"]], "aps.attributes"),
            (["aps": ["event": "start", "attributes-type": 5]], "aps.attributes-type"),
            (["aps": ["event": "start", "input-push-channel": 5]], "aps.input-push-channel"),
            (["aps": ["event": "start", "alert": ["title": 1]]], "aps.alert.title"),
            (["aps": ["event": "start", "alert": ["body": ["loc-args": ["a"]]]]], "aps.alert.body.loc-key"),
            (
                ["aps": ["event": "start", "alert": ["body": ["loc-key": "K", "loc-args": [1]]]]],
                "aps.alert.body.loc-args[0]"
            ),
            (["aps": ["event": "start", "alert": ["sound": 1]]], "aps.alert.sound"),
        ]
        for (json, path) in cases {
            guard case .failure(let error) = LiveActivityPayload.parse(json) else {
                XCTFail("accepted \(json)")
                continue
            }
            XCTAssertEqual(error.path, path, "\(json)")
            XCTAssertEqual(error.apnsError.reason, .badRequestPayload)
        }
    }

    func testAlertForms() throws {
        let bare = try LiveActivityAlert.parse("Goal!").get()
        XCTAssertEqual(bare.body, .plain("Goal!"))
        XCTAssertNil(bare.title)

        let flat = try LiveActivityAlert.parse([
            "title-loc-key": "T", "title-loc-args": ["x"], "loc-key": "B",
            "sound": ["critical": 1, "name": "siren", "volume": 1.0],
            "subtitle": "kept",
        ]).get()
        XCTAssertEqual(flat.title, .localized(key: "T", arguments: ["x"]))
        XCTAssertEqual(flat.body, .localized(key: "B", arguments: []))
        XCTAssertEqual(flat.sound, "siren")
        XCTAssertEqual(flat.json["subtitle"], "kept", "original JSON kept")

        let built = LiveActivityAlert(
            title: .plain("T"), body: .localized(key: "K", arguments: ["1"]), sound: "default")
        XCTAssertEqual(built.json, ["title": "T", "body": ["loc-key": "K", "loc-args": ["1"]], "sound": "default"])
        XCTAssertEqual(try LiveActivityAlert.parse(built.json).get(), built)
    }

    func testWireFormRoundTrips() throws {
        let payload = LiveActivityPayload(
            event: .start, timestamp: 1_700_000_000, contentState: ["n": 1], staleDate: 1_700_000_600,
            dismissalDate: nil, relevanceScore: 0.5, alert: LiveActivityAlert(title: .plain("t")),
            attributesType: "A", attributes: ["k": "v"], inputPushToken: true, inputPushChannel: "Y2g=",
            otherAPSKeys: ["badge": 1], customKeys: ["extra": [1, 2]])
        let json = payload.jsonValue
        XCTAssertEqual(json["aps"]?["content-state"], ["n": 1])
        XCTAssertEqual(json["aps"]?["input-push-token"], 1)
        XCTAssertEqual(json["extra"], [1, 2])
        XCTAssertEqual(try parse(json), payload)
    }

    func testNullMeansAbsent() throws {
        let payload = try parse([
            "aps": ["event": "end", "timestamp": 1, "stale-date": nil, "alert": nil, "input-push-token": nil]
        ])
        XCTAssertNil(payload.staleDate)
        XCTAssertNil(payload.alert)
        XCTAssertFalse(payload.inputPushToken)
    }

    func testInputPushTokenFlagForms() throws {
        for (value, expected) in [
            (JSONValue.int(1), true), (.int(0), false), (.bool(true), true), (.double(1.0), true),
        ] {
            let payload = try parse(["aps": ["event": "start", "input-push-token": value]])
            XCTAssertEqual(payload.inputPushToken, expected, "\(value)")
        }
    }

    func testPayloadHints() throws {
        let payload = try parse([
            "aps": [
                "event": "update", "timestamp": 1_700_000_000_000, "stale-date": 1_700_000_600_000,
                "content-state": [:], "contentState": [:], "attributes": [:], "input-push-token": 1,
                "dismissal-date": 5,
            ]
        ])
        XCTAssertEqual(
            payload.hints.map(\.code),
            [
                "timestampInMilliseconds", "timestampInMilliseconds", "unknownAPSKeys", "startOnlyKey", "startOnlyKey",
                "dismissalDateNotOnEnd",
            ])
        XCTAssertTrue(payload.hints[0].message.contains("1700000000000"), payload.hints[0].message)
        XCTAssertTrue(payload.hints[2].message.contains("'contentState'"))
        XCTAssertEqual(payload.issues, [], "hints are not issues")
    }

    func testSecondsAreNotTakenForMilliseconds() throws {
        let payload = try parse(["aps": ["event": "update", "timestamp": 99_999_999_999, "content-state": [:]]])
        XCTAssertEqual(payload.hints, [])
    }
}
