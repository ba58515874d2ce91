import Foundation
import RelayTestKit
import XCTest

/// The benchmarks (`bench/`) and the fuzzer (`fuzz/`) are packages of their own that use the relay's
/// libraries. No other test builds them, so an API change that breaks one went unnoticed for
/// several sessions (`bench-engine-server`). These tests build them, in debug, in their own
/// `.build` folders.
final class CompanionPackageTests: XCTestCase {
    /// Every benchmark program compiles and links.
    func testTheBenchmarksBuild() throws {
        try build(["--package-path", Fixtures.repositoryRoot.appendingPathComponent("bench").path])
    }

    /// The fuzzer's module compiles. Only `fuzz/run.sh` links it, since linking needs libFuzzer
    /// and the sanitizer flags.
    func testTheFuzzTargetsCompile() throws {
        try build([
            "--package-path", Fixtures.repositoryRoot.appendingPathComponent("fuzz").path, "--target", "relay-fuzz",
        ])
    }

    private func build(_ arguments: [String]) throws {
        let outcome = try ChildProcess.run(["swift", "build"] + arguments, timeout: 1_200)
        XCTAssertEqual(
            outcome.status, 0, "swift build \(arguments.joined(separator: " ")):\n\(outcome.stdout)\(outcome.stderr)")
    }
}
