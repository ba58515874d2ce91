import RelayCore
import RelayJSON
import XCTest

/// The `timeline` step: it prints a device's widget timeline and checks what its `expect` names.
final class ScenarioTimelineStepTests: XCTestCase {
    private func scenario(_ step: JSONObject) -> JSONValue {
        var timeline = step
        timeline["at"] = "1m"
        timeline["do"] = "timeline"
        return [
            "devices": [["name": "phone", "apps": ["com.example.app": [:]]]],
            "steps": [
                [
                    "at": 0, "do": "start", "name": "order", "device": "phone", "bundleId": "com.example.app",
                    "attributesType": "A", "attributes": [:], "contentState": ["n": 1],
                ],
                .object(timeline),
            ],
        ]
    }

    func testAnUnmetExpectationIsReportedNotThrown() throws {
        let report = try ScenarioRunner.run(
            scenario([
                "device": "phone", "until": "$now+1h",
                "expect": ["entries": 3, "policy": ["after": "$start+8h"], "top": ["order"]],
            ]))
        XCTAssertEqual(report.expectationsPassed, 2)
        XCTAssertEqual(report.failures, ["+0:01:00 phone timeline entries: expected 3, found 1"])
        XCTAssertTrue(report.text.contains("phone systemMedium: 1 entries, policy after +8:00:00"), report.text)
        XCTAssertTrue(report.text.contains("+0:01:00 relevance 0: order active"), report.text)
    }

    func testMalformedStepsNameTheirPath() {
        let cases: [(JSONObject, String, String)] = [
            (["device": "tablet"], "steps[1].device", "'tablet' is not a device name"),
            (["device": "phone", "family": "huge"], "steps[1].family", "must be one of"),
            (["device": "phone", "until": "soon"], "steps[1].until", "must be a time"),
            (["device": "phone", "until": "$now-1m"], "steps[1].until", "until must be Unix seconds from now"),
            (["device": "phone", "expect": ["color": 1]], "steps[1].expect.color", "is not entries"),
            (["device": "phone", "expect": [:]], "steps[1].expect", "must be an object"),
        ]
        for (step, path, message) in cases {
            do {
                _ = try ScenarioRunner.run(scenario(step))
                XCTFail("\(JSONValue.object(step).jsonString) ran")
            } catch {
                XCTAssertEqual(error.path, path, JSONValue.object(step).jsonString)
                XCTAssertTrue(error.message.hasPrefix(message), "\(error.message)")
            }
        }
    }
}
