import Foundation
import RelayServer

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
        do {
            let run = try ScenarioFile.run([UInt8](data), path: path, asJSON: asJSON)
            print(run.output, terminator: "")
            return run.passed ? 0 : 1
        } catch {
            Terminal.fail("activity-relay simulate: \(error)")
        }
    }
}
