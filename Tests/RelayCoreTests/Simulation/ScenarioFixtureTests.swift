import Foundation
import RelayCore
import RelayJSON
import XCTest

/// Every scenario in fixtures/scenarios runs, meets its own expectations and prints exactly its
/// recorded timeline (`<name>.expected.txt`).
final class ScenarioFixtureTests: XCTestCase {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fixtures/scenarios")

    static let required = [
        "delivery-tracker-12h", "sports-budget", "push-to-start-burst", "kitchen-timer", "weekly-alarm-dst",
        "out-of-order",
    ]

    func testEveryRequiredScenarioExists() throws {
        for name in Self.required {
            XCTAssertTrue(
                FileManager.default.fileExists(atPath: Self.directory.appendingPathComponent("\(name).json").path), name
            )
        }
    }

    func testEachScenarioMeetsItsExpectationsAndMatchesItsTimeline() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path)
            .filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertGreaterThanOrEqual(files.count, Self.required.count)
        for file in files {
            let url = Self.directory.appendingPathComponent(file)
            let scenario = try JSONValue(parsing: [UInt8](try Data(contentsOf: url)))
            let report = try ScenarioRunner.run(scenario)
            XCTAssertEqual(report.failures, [], file)
            XCTAssertGreaterThan(report.expectationsPassed, 0, file)
            let expected = try String(
                contentsOf: url.deletingPathExtension().appendingPathExtension("expected.txt"), encoding: .utf8)
            XCTAssertEqual(report.text, expected, "\(file): timeline differs from its .expected.txt")
        }
    }

    func testRunsAreDeterministic() throws {
        let url = Self.directory.appendingPathComponent("push-to-start-burst.json")
        let scenario = try JSONValue(parsing: [UInt8](try Data(contentsOf: url)))
        XCTAssertEqual(try ScenarioRunner.run(scenario).json, try ScenarioRunner.run(scenario).json)
    }
}

/// Malformed scenarios fail with the JSON path of the problem.
final class ScenarioErrorTests: XCTestCase {
    private let device: JSONValue = [["name": "phone"]]

    private func error(_ scenario: JSONValue) -> ScenarioError? {
        do {
            _ = try ScenarioRunner.run(scenario)
            return nil
        } catch {
            return error
        }
    }

    func testErrorsNameTheJSONPath() {
        let cases: [(JSONValue, String)] = [
            (["steps": []], "devices"),
            (["devices": device], "steps"),
            (["devices": device, "steps": [["do": "advance"]]], "steps[0].at"),
            (["devices": device, "steps": [["at": "5x", "do": "advance"]]], "steps[0].at"),
            (
                ["devices": device, "steps": [["at": 10, "do": "advance"], ["at": 5, "do": "advance"]]], "steps[1].at"
            ),
            (["devices": device, "steps": [["at": 0, "do": "fly"]]], "steps[0].do"),
            (["devices": device, "steps": [["at": 0, "do": "push", "to": "nobody", "payload": [:]]]], "steps[0].to"),
            (["devices": device, "steps": [["at": 0, "do": "expect"]]], "steps[0]"),
            (["devices": device, "steps": [["at": 0, "do": "start", "device": "tablet"]]], "steps[0].device"),
            (["devices": device, "rules": ["activeLifetime": "long"], "steps": []], "rules.activeLifetime"),
            (["devices": device, "steps": [], "bogus": 1], "bogus"),
            (
                [
                    "devices": device,
                    "steps": [["at": 0, "do": "start", "device": "phone", "attributes": "$nothing.id"]],
                ],
                "steps[0].attributes"
            ),
        ]
        for (scenario, path) in cases {
            XCTAssertEqual(error(scenario)?.path, path, scenario.jsonString)
        }
    }

    /// A misspelt or unknown member anywhere is refused with its JSON path, not run.
    func testUnknownMembersAreRefusedWithTheirPath() {
        let start: JSONValue = [
            "at": 0, "do": "start", "name": "a", "device": "phone", "bundleId": "com.example.app",
            "attributesType": "A", "attributes": [:], "contentState": [:], "pushType": "token",
        ]
        let cases: [(JSONValue, String)] = [
            (
                [
                    "devices": device,
                    "steps": [
                        start,
                        ["at": 1, "do": "push", "to": "a", "payload": ["aps": [:]], "header": ["apns-priority": "5"]],
                    ],
                ], "steps[1].header"
            ),
            (
                ["devices": device, "steps": [start, ["at": 1, "do": "expect", "activity": "a", "stat": "active"]]],
                "steps[1].stat"
            ),
            (["devices": device, "steps": [["at": 1, "do": "expect", "staus": 200]]], "steps[0].staus"),
            (["devices": device, "steps": [["at": 1, "do": "expect", "state": "active"]]], "steps[0].state"),
            (["devices": device, "steps": [["at": 1, "do": "advance", "by": 5]]], "steps[0].by"),
            (["devices": [["name": "phone", "app": [:]]], "steps": []], "devices[0].app"),
        ]
        for (scenario, path) in cases {
            let found = error(scenario)
            XCTAssertEqual(found?.path, path, scenario.jsonString)
            XCTAssertTrue(
                found?.message.hasPrefix("is not a known member here") == true, "\(String(describing: found))")
        }
    }

    /// The device and step lists: missing is required; there but not a list (or no devices) says
    /// what was found.
    func testTheListsAreRequiredAndMustBeLists() {
        let cases: [(JSONValue, String, String)] = [
            (["steps": []], "devices", #"is required: a non-empty array of {"name", "apps"}"#),
            (["devices": 3, "steps": []], "devices", #"must be a non-empty array of {"name", "apps"}, not 3"#),
            (["devices": [], "steps": []], "devices", #"must be a non-empty array of {"name", "apps"}, not []"#),
            (["devices": device], "steps", "is required: an array of steps"),
            (["devices": device, "steps": ["at": 0]], "steps", #"must be an array of steps, not {"at":0}"#),
        ]
        for (scenario, path, message) in cases {
            XCTAssertEqual(error(scenario)?.path, path, scenario.jsonString)
            XCTAssertEqual(error(scenario)?.message, message, scenario.jsonString)
        }
        XCTAssertNil(error(["devices": device, "steps": []]))
    }

    /// A step's time that is missing and one that is not a time are told apart.
    func testAStepTimeIsRequiredAndMustBeATime() {
        XCTAssertEqual(
            error(["devices": device, "steps": [["do": "advance"]]])?.message,
            #"is required: seconds or a duration like "90s", "15m", "8h""#)
        XCTAssertEqual(
            error(["devices": device, "steps": [["at": "5x", "do": "advance"]]])?.message,
            #"is not a time ("5x"): use seconds or a duration like "90s", "15m", "8h""#)
        XCTAssertEqual(
            error(["devices": device, "steps": [["at": -1, "do": "advance"]]])?.message,
            #"is not a time (-1): use seconds or a duration like "90s", "15m", "8h""#)
    }

    /// A name that is missing is required; one that is there but is no string (or is empty) is
    /// quoted, so the message says what to fix.
    func testANameIsRequiredAndMustBeText() {
        let cases: [(JSONValue, String, String)] = [
            (["devices": [["apps": [:]]], "steps": []], "devices[0].name", "is required (a string)"),
            (["devices": [["name": 1]], "steps": []], "devices[0].name", "must be a non-empty string, not 1"),
            (["devices": [["name": ""]], "steps": []], "devices[0].name", #"must be a non-empty string, not """#),
            (
                ["devices": device, "steps": [["at": 0, "do": "scheduleAlarm", "name": "a", "device": ["phone"]]]],
                "steps[0].device",
                #"must be a non-empty string, not ["phone"]"#
            ),
        ]
        for (scenario, path, message) in cases {
            let found = error(scenario)
            XCTAssertEqual(found?.path, path, scenario.jsonString)
            XCTAssertEqual(found?.message, message, scenario.jsonString)
        }
    }

    /// Times the report could not write are refused with their path, not run (found by fuzz/,
    /// target scenario: a step at "444…4d" crashed `simulate` while it wrote the timeline).
    func testTimesPastWhatTheReportCanWriteAreRefused() {
        let far = String(repeating: "4", count: 80) + "d11h1m"
        let cases: [(JSONValue, String)] = [
            (["devices": device, "steps": [["at": .string(far), "do": "advance"]]], "steps[0].at"),
            (["devices": device, "steps": [["at": 1e300, "do": "advance"]]], "steps[0].at"),
            (["devices": device, "steps": [["at": "3651d", "do": "advance"]]], "steps[0].at"),
            (["devices": device, "steps": [], "until": "3651d"], "until"),
            (["devices": device, "steps": [], "start": 1e300], "start"),
            (["devices": device, "steps": [], "start": -1], "start"),
            (["devices": device, "steps": [], "seed": 1e300], "seed"),
            (["devices": device, "steps": [], "seed": 1.5], "seed"),
            (
                [
                    "devices": device,
                    "steps": [
                        ["at": 0, "do": "createChannel", "name": "c", "bundleId": "com.a.b", "storagePolicy": 1e300]
                    ],
                ], "steps[0].storagePolicy"
            ),
        ]
        for (scenario, path) in cases {
            XCTAssertEqual(error(scenario)?.path, path, scenario.jsonString)
        }
        // The bounds themselves run.
        let longest: JSONValue = [
            "devices": device, "start": .double(253_402_300_799 - 3650 * 86_400), "seed": .int(1 << 53),
            "steps": [["at": "3650d", "do": "advance"]],
        ]
        XCTAssertNil(error(longest))
    }

    /// Offsets and dates are written whatever their size, never trapping.
    func testOffsetsAndDatesOfAnySizeAreWritten() {
        XCTAssertEqual(DurationText.offset(90), "+0:01:30")
        XCTAssertEqual(DurationText.offset(86_400 * 2 + 3600), "+2d 1:00:00")
        XCTAssertEqual(DurationText.offset(-90), "-0:01:30")
        XCTAssertEqual(DurationText.offset(1e300), "+1e+300s")
        XCTAssertEqual(DurationText.offset(-.infinity), "+-infs")
        XCTAssertEqual(DurationText.offset(.nan), "+nans")
        XCTAssertEqual(UTCDate.format(0), "1970-01-01T00:00:00Z")
        XCTAssertEqual(UTCDate.format(1e300), "1e+300s")
        XCTAssertEqual(UTCDate.format(.nan), "nans")
        XCTAssertEqual(UTCDate.format(-1e20), "-1e+20s")
    }

    func testFailedExpectationIsReportedNotThrown() throws {
        let scenario: JSONValue = [
            "devices": [["name": "phone", "apps": ["com.example.app": [:]]]],
            "steps": [
                [
                    "at": 0, "do": "start", "name": "a", "device": "phone", "bundleId": "com.example.app",
                    "attributesType": "T", "attributes": [:], "contentState": ["n": 1],
                ],
                ["at": "1h", "do": "expect", "activity": "a", "state": "ended"],
            ],
        ]
        let report = try ScenarioRunner.run(scenario)
        XCTAssertEqual(report.failures.count, 1)
        XCTAssertTrue(report.failures[0].contains("expected \"ended\", found \"active\""), report.failures[0])
    }
}
