import Foundation
import RelayCore
import RelayJSON

/// `activity-relay simulate SCENARIO.json [--json]`: runs a scenario offline and prints its
/// timeline. Exit status 0 when every expectation holds, 1 when one fails, 2 for a bad scenario.
enum SimulateCommand {
    static func run(_ arguments: [String]) -> Int32 {
        var path: String?
        var asJSON = false
        for argument in arguments {
            switch argument {
            case "--json": asJSON = true
            case let flag where flag.hasPrefix("-"):
                Terminal.fail(
                    "activity-relay simulate: unknown option '\(flag)' (usage: simulate SCENARIO.json [--json])")
            default:
                guard path == nil else { Terminal.fail("activity-relay simulate: give one scenario file, not several") }
                path = argument
            }
        }
        guard let path else { Terminal.fail("activity-relay simulate: missing SCENARIO.json") }
        guard let data = FileManager.default.contents(atPath: path) else {
            Terminal.fail("activity-relay simulate: cannot read '\(path)'")
        }
        let scenario: JSONValue
        let bytes = [UInt8](data)
        do {
            scenario = try JSONValue(parsing: bytes)
        } catch {
            Terminal.fail("activity-relay simulate: \(path) is not valid JSON: \(error.description(in: bytes))")
        }
        let report: SimulationReport
        do {
            report = try ScenarioRunner.run(scenario)
        } catch {
            Terminal.fail("activity-relay simulate: \(path): \(error)")
        }
        if asJSON {
            print(report.json.jsonString)
        } else {
            print(report.text, terminator: "")
        }
        return report.failures.isEmpty ? 0 : 1
    }
}
