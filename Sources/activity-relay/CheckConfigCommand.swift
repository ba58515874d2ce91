import Foundation
import RelayServer

/// `activity-relay check-config FILE`: reads a config file with `serve`'s parser and prints
/// `FILE: ok` (exit 0), or every problem on its own line, each naming its JSON path (exit 2).
enum CheckConfigCommand {
    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.count == 1, let file = arguments.first, !file.hasPrefix("-") else {
            Terminal.fail("usage: activity-relay check-config FILE")
        }
        let problems = ConfigCheck.problems(inFile: file, workingDirectory: FileManager.default.currentDirectoryPath)
        guard !problems.isEmpty else {
            print("\(file): ok")
            return 0
        }
        for problem in problems { Terminal.error(problem) }
        return 2
    }
}
