import Foundation
import RelayCore
import RelayJSON
import RelayTestKit
import XCTest

/// The real binary (`activity-relay serve --clock virtual`) killed with SIGKILL while clients
/// write through the app API: after every restart each acknowledged write is there.
final class AppAPICrashTests: XCTestCase {
    /// What the writers were told was done, accumulated over every round.
    private struct Acknowledged {
        var devices: Set<String> = []
        var activities: Set<String> = []
        /// Activity → the highest acknowledged update counter.
        var updates: [String: Int64] = [:]
        var alarms: Set<String> = []
        var clock: UnixSeconds = 0
        var count = 0

        mutating func add(_ line: Substring) throws {
            let record = try JSONValue(parsing: String(line))
            let id = record["id"]?.stringValue ?? ""
            switch record["kind"]?.stringValue {
            case "device": devices.insert(id)
            case "activity": activities.insert(id)
            case "update": updates[id] = max(updates[id] ?? 0, record["n"]?.int64Value ?? 0)
            case "alarm": alarms.insert(id)
            case "clock": clock = max(clock, record["now"]?.doubleValue ?? 0)
            default: XCTFail("unknown record \(line)")
            }
            count += 1
        }
    }

    func testEveryAcknowledgedWriteSurvivesSIGKILL() throws {
        let relay = try KillableRelay(name: "crash", flags: ["--clock", "virtual"])
        let deviceId = try relay.api.expect(201, "POST", "/v1/devices")["deviceId"]?.stringValue ?? ""
        var acknowledged = Acknowledged()

        for round in 0..<4 {
            let lines = try relay.killWhileWriting(
                { port in
                    ["python3", Fixtures.path("app_writes.py"), String(port), relay.ca, relay.admin, deviceId, "4"]
                }, after: 0.5 + Double(round) * 0.25, round: round)
            let before = acknowledged.count
            for line in lines { try acknowledged.add(line) }
            XCTAssertGreaterThan(acknowledged.count, before, "round \(round): writes were acknowledged before the kill")
            try verify(acknowledged, deviceId: deviceId, api: relay.api, round: round)
        }
        XCTAssertGreaterThan(acknowledged.count, 40, "enough writes raced the kills")
        try relay.stop()
    }

    private func verify(_ acknowledged: Acknowledged, deviceId: String, api: AppAPIClient, round: Int) throws {
        let devices = try api.expect(200, "GET", "/v1/devices")["items"]?.arrayValue ?? []
        let deviceIds = Set(devices.compactMap { $0["deviceId"]?.stringValue })
        XCTAssertTrue(acknowledged.devices.isSubset(of: deviceIds), "round \(round): devices lost")

        let activities = try api.expect(200, "GET", "/v1/activities?deviceId=\(deviceId)")["items"]?.arrayValue ?? []
        var counters: [String: Int64] = [:]
        for activity in activities {
            counters[activity["id"]?.stringValue ?? ""] = activity["contentState"]?["n"]?.int64Value ?? 0
        }
        XCTAssertTrue(acknowledged.activities.isSubset(of: Set(counters.keys)), "round \(round): activities lost")
        for (id, n) in acknowledged.updates {
            XCTAssertGreaterThanOrEqual(counters[id] ?? -1, n, "round \(round): update \(n) of \(id) lost")
        }

        let alarms = try api.expect(200, "GET", "/v1/alarms?deviceId=\(deviceId)")["items"]?.arrayValue ?? []
        XCTAssertTrue(
            acknowledged.alarms.isSubset(of: Set(alarms.compactMap { $0["id"]?.stringValue })),
            "round \(round): alarms lost")

        let now = try api.expect(200, "GET", "/v1/clock")["now"]?.doubleValue ?? 0
        XCTAssertGreaterThanOrEqual(now, acknowledged.clock, "round \(round): the clock went back")
    }
}
