import Foundation
import RelayCore
import RelayJSON
import RelayServer
import XCTest

/// A device's widget timeline promises what the stream later delivers: walking the virtual clock
/// through each entry's date, the state the events build is the state the entry shows, the
/// policy's date is when the next change happens, and a push in between records `timeline.reload`.
final class WidgetTimelineStreamTests: XCTestCase {
    private var provider: ProviderRelay!

    override func setUpWithError() throws {
        provider = try ProviderRelay { options in options.clockMode = .virtual }
    }

    override func tearDown() {
        provider?.stop()
        provider = nil
    }

    /// What the stream's events say the device shows: each activity's state and content, each
    /// alarm's state.
    private struct Shown: Equatable {
        var activities: [String: [String: JSONValue]] = [:]
        var alarms: [String: String] = [:]

        mutating func apply(_ data: JSONValue) {
            if let activity = data["activity"], let id = activity["id"]?.stringValue {
                if activity["state"]?.stringValue == "dismissed" {
                    activities[id] = nil
                } else {
                    activities[id] = [
                        "state": activity["state"] ?? .null, "contentState": activity["contentState"] ?? .null,
                    ]
                }
            }
            if let alarm = data["alarm"], let id = alarm["id"]?.stringValue {
                alarms[id] = data["type"]?.stringValue == "alarm.removed" ? nil : alarm["state"]?.stringValue
            }
        }

        /// The same view of one timeline entry (a large widget shows every item here).
        init() {}
        init(entry: JSONValue) {
            for item in entry["items"]?.arrayValue ?? [] {
                guard let id = item["id"]?.stringValue else { continue }
                if item["kind"]?.stringValue == "activity" {
                    activities[id] = ["state": item["state"] ?? .null, "contentState": item["contentState"] ?? .null]
                } else {
                    alarms[id] = item["state"]?.stringValue
                }
            }
        }
    }

    private var app: AppAPIClient { provider.app }

    /// Sets the virtual clock to `time` and returns the events up to its `clock` event.
    private func setClock(_ time: UnixSeconds, _ stream: EventStreamConnection) throws -> [JSONValue] {
        try app.expect(200, "POST", "/v1/clock", json: ["set": .number(time)])
        var events: [JSONValue] = []
        while events.last?["type"]?.stringValue != "clock" {
            let more = try stream.collect(1)
            guard !more.isEmpty else { throw StreamTestError("no clock event after setting \(time)") }
            events += more.map(\.json)
        }
        return events
    }

    private func timeline(_ device: String, _ query: String) throws -> JSONValue {
        try app.expect(200, "GET", "/v1/devices/\(device)/timeline?\(query)")
    }

    func testEntriesMatchTheStreamAndAPushRecordsAReload() throws {
        try app.expect(200, "POST", "/v1/clock", json: ["rate": 0])
        let device = try provider.makeDevice().id
        let stream = try provider.relay.openStream("/v1/stream", key: provider.data.adminKey.secret)
        provider.relay.waitForSubscribers(1)
        let start = try XCTUnwrap(app.expect(200, "GET", "/v1/clock")["now"]?.doubleValue)
        let started = try app.expect(
            201, "POST", "/v1/activities",
            json: [
                "deviceId": .string(device), "bundleId": .string(ProviderRelay.bundle),
                "attributesType": "DeliveryAttributes", "attributes": ["order": "42"], "contentState": ["eta": 25],
                "staleDate": .number(start + 1800), "relevanceScore": 97, "pushType": "token",
            ])
        let token = try XCTUnwrap(started["pushToken"]?.stringValue)
        try app.expect(
            201, "POST", "/v1/alarms",
            json: [
                "deviceId": .string(device), "bundleId": "com.example.tea", "countdownDuration": ["preAlert": 300],
                "presentation": ["alert": ["title": "Tea is ready"]],
            ])
        var shown = Shown()
        // started, pushToken, reload; alarm.updated, reload.
        let opening = try stream.collect(5).map(\.json)
        for event in opening { shown.apply(event) }
        XCTAssertEqual(opening.filter { $0["type"]?.stringValue == "timeline.reload" }.count, 2)

        let first = try timeline(device, "family=systemLarge&until=\(start + 3600)")
        let entries = try XCTUnwrap(first["entries"]?.arrayValue)
        XCTAssertEqual(
            entries.map { ($0["date"]?.doubleValue ?? 0) - start }, [0, 60, 120, 180, 240, 300, 1800],
            "now, each minute of the countdown, the alert, the stale date")
        XCTAssertEqual(Shown(entry: entries[0]), shown)
        XCTAssertEqual(
            first["policy"]?["after"]?.doubleValue, start + 8 * 3600, "the system end, past the horizon")

        // The first minute passes as promised; no reload comes from time alone.
        let minute = try setClock(try XCTUnwrap(entries[1]["date"]?.doubleValue), stream)
        for event in minute { shown.apply(event) }
        XCTAssertFalse(minute.contains { $0["type"]?.stringValue == "timeline.reload" })
        XCTAssertEqual(Shown(entry: entries[1]), shown)

        // A push changes the future: the stream says so, and the new timeline shows the push.
        let jwt = try provider.devToken()
        let body = #"{"aps":{"timestamp":\#(Int(start) + 60),"event":"update","content-state":{"eta":10}}}"#
        let push = try provider.relay.curl([
            "--http2", "-w", "%{http_code}", "-H", "apns-topic: \(ProviderRelay.topic)", "-H",
            "apns-push-type: liveactivity", "-H", "authorization: bearer \(jwt)", "--data-binary", body,
            "\(provider.relay.base)/3/device/\(token)",
        ])
        XCTAssertEqual(push.stdout, "200", push.stderr)
        let afterPush = try stream.collect(3).map(\.json)
        XCTAssertEqual(
            afterPush.map { $0["type"]?.stringValue }, ["activity.updated", "push.received", "timeline.reload"])
        XCTAssertEqual(afterPush.last?["deviceId"]?.stringValue, device)
        for event in afterPush { shown.apply(event) }

        let second = try timeline(device, "family=systemLarge&until=\(start + 3600)")
        let renewed = try XCTUnwrap(second["entries"]?.arrayValue)
        XCTAssertEqual(Shown(entry: renewed[0]), shown)
        XCTAssertEqual(renewed.first?["items"]?.arrayValue?.first?["contentState"]?["eta"]?.doubleValue, 10)
        for entry in renewed.dropFirst() {
            let date = try XCTUnwrap(entry["date"]?.doubleValue)
            let events = try setClock(date, stream)
            for event in events { shown.apply(event) }
            XCTAssertEqual(Shown(entry: entry), shown, "entry at +\(date - start)")
            XCTAssertFalse(events.contains { $0["type"]?.stringValue == "timeline.reload" })
        }

        // Nothing changes before the policy's date, and something does at it.
        guard let after = second["policy"]?["after"]?.doubleValue else {
            return XCTFail("policy \(second["policy"] ?? .null)")
        }
        let before = try setClock(after - 1, stream)
        XCTAssertEqual(before.map { $0["type"]?.stringValue }, ["clock"])
        let at = try setClock(after, stream)
        XCTAssertTrue(
            at.contains { $0["at"]?.doubleValue == after && $0["type"]?.stringValue == "activity.ended" },
            "\(at)")
        stream.close()
    }

    func testBadParametersAreRefused() throws {
        let device = try provider.makeDevice().id
        for query in ["family=systemHuge", "until=soon", "until=1", "until=1e300", "color=red"] {
            let reply = try app.send("GET", "/v1/devices/\(device)/timeline?\(query)")
            XCTAssertEqual(reply.status, 400, query)
            XCTAssertEqual(reply.json["error"]?.stringValue, "invalidRequest", query)
            XCTAssertNotNil(reply.json["message"]?.stringValue, query)
        }
        XCTAssertEqual(try app.send("GET", "/v1/devices/nope/timeline").status, 404)
        XCTAssertEqual(try app.send("POST", "/v1/devices/\(device)/timeline").status, 405)
        let empty = try timeline(device, "family=accessoryRectangular")
        XCTAssertEqual(empty["policy"], ["never": true])
        XCTAssertEqual(empty["entries"]?.arrayValue?.count, 1)
    }
}
