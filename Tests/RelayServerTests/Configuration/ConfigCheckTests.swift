import Foundation
import XCTest

@testable import RelayServer

/// `check-config` names every problem of a config file with its JSON path, using the parser
/// `serve` uses, and nothing for a good file.
final class ConfigCheckTests: XCTestCase {
    func testTheExampleConfigsHaveNoProblem() {
        for name in ["deploy/relay.example.json", "deploy/container/relay.json"] {
            let path = Fixtures.repositoryRoot.appendingPathComponent(name).path
            XCTAssertEqual(ConfigCheck.problems(inFile: path, workingDirectory: "/"), [], name)
        }
    }

    func testEveryProblemIsNamedByItsPathInTheFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try scratch.write(
            "bad.json",
            """
            {"listen": "nope", "threads": 0, "logFormat": "xml", "bogus": 1,
             "providerKeys": [
               {"keyId": 5},
               {"teamId": "ABCDE12345", "keyId": "KEY1234567", "p8Path": "a.p8", "bundleIds": ["com.x"]},
               {"teamId": "ABCDE12345", "keyId": "KEY1234568", "p8Path": "b.p8", "bundleIds": 7}],
             "http": {"maxConnections": -1}, "rules": {"updateBudgetPerHour": -3},
             "metrics": {"listen": "x", "extra": true}}
            """)
        let problems = ConfigCheck.problems(inFile: file, workingDirectory: "/")
        let paths = problems.map { problem in
            String(problem.dropFirst(file.count + 2).prefix { $0 != ":" })
        }
        XCTAssertEqual(
            paths,
            [
                "bogus", "listen", "threads", "logFormat", "metrics.extra", "metrics.listen", "providerKeys[0].teamId",
                "providerKeys[2].bundleIds", "rules.updateBudgetPerHour", "http.maxConnections",
            ], problems.joined(separator: "\n"))
        XCTAssertTrue(problems.allSatisfy { $0.hasPrefix(file + ": ") })
    }

    func testUnreadableAndMalformedFilesAreOneProblem() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let missing = ConfigCheck.problems(inFile: scratch.file("none.json"), workingDirectory: "/")
        XCTAssertEqual(missing.count, 1)
        let file = try scratch.write("broken.json", #"{"listen": "#)
        let broken = ConfigCheck.problems(inFile: file, workingDirectory: "/")
        XCTAssertEqual(broken.count, 1)
        XCTAssertTrue(broken[0].contains("not valid JSON"), broken[0])
    }

    func testPathsParseAndPrintBack() {
        for text in ["a", "a.b", "providerKeys[12].bundleIds", "rules.pushToStartBudget.capacity", "a[1][2].b"] {
            XCTAssertEqual(JSONPath(text).text, text)
        }
        XCTAssertTrue(JSONPath("a.b").isRelated(to: JSONPath("a.b.c")))
        XCTAssertFalse(JSONPath("a.b").isRelated(to: JSONPath("a.c")))
    }
}
