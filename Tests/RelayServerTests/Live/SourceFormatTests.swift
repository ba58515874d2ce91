import Foundation
import RelayTestKit
import XCTest

/// Every Swift source of the repository follows its `.swift-format`, so style never drifts between
/// sessions: `swift format lint --strict` (the toolchain's own formatter) must find nothing.
final class SourceFormatTests: XCTestCase {
    func testEverySourceFollowsTheFormat() throws {
        let folders = ["Sources", "Tests", "bench/Sources", "fuzz/Sources"].map {
            Fixtures.repositoryRoot.appendingPathComponent($0).path
        }
        for folder in folders {
            XCTAssertTrue(FileManager.default.fileExists(atPath: folder), "\(folder) is missing")
        }
        let outcome = try ChildProcess.run(
            ["swift", "format", "lint", "--strict", "--parallel", "--recursive"] + folders, timeout: 120)
        XCTAssertEqual(
            outcome.status, 0,
            "swift format lint found (fix with `swift format format -i FILE`):\n\(outcome.stderr)\(outcome.stdout)")
    }
}
