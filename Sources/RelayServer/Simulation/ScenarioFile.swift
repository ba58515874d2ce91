import RelayCore
import RelayJSON

/// A scenario read from a file and run offline (`activity-relay simulate`): the command line's
/// way to the simulation, so the executable needs no module but this one.
package enum ScenarioFile {
    /// What running a scenario file printed and whether every expectation held.
    package struct Run: Sendable {
        /// The timeline (text), or the report as one line of JSON.
        package var output: String
        /// True when every `expect` step held.
        package var passed: Bool
    }

    /// Why a scenario file could not be run: one line naming the file and what is wrong.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// Runs the scenario in `bytes` (read from `path`, which only names it in errors), printing
    /// the report as JSON when `asJSON`.
    package static func run(_ bytes: [UInt8], path: String, asJSON: Bool) throws(Failure) -> Run {
        let scenario: JSONValue
        do {
            scenario = try JSONValue(parsing: bytes)
        } catch {
            throw Failure(description: "\(path) is not valid JSON: \(error.description(in: bytes))")
        }
        let report: SimulationReport
        do {
            report = try ScenarioRunner.run(scenario)
        } catch {
            throw Failure(description: "\(path): \(error)")
        }
        return Run(output: asJSON ? report.json.jsonString + "\n" : report.text, passed: report.failures.isEmpty)
    }
}
