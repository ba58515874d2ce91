import Foundation
import RelayTestKit
import XCTest

/// The benchmarks (`bench/`) and the fuzzer (`fuzz/`) are packages of their own that use the relay's
/// libraries. No other test builds them, so an API change that breaks one went unnoticed for
/// several sessions (`bench-engine-server`). These tests build them, in debug, in their own
/// `.build` folders.
final class CompanionPackageTests: XCTestCase {
    /// Every benchmark program compiles and links, and `bench-core` reaches the same outcomes in each
    /// of its ways of running: one thread, two threads taking turns at one emulator, and two
    /// emulators with half the devices each (a small run, in debug: its times mean nothing here).
    func testTheBenchmarksBuildAndBenchCoreRunsAlikeInEachMode() throws {
        let package = Fixtures.repositoryRoot.appendingPathComponent("bench").path
        try build(["--package-path", package])
        let binaryPath = try ChildProcess.run(["swift", "build", "--package-path", package, "--show-bin-path"])
        let binary = binaryPath.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + "/bench-core"
        var reports: [String: [String]] = [:]
        for mode in [["--threads", "1"], ["--threads", "2"], ["--split"]] {
            let run = try ChildProcess.run([binary, "200", "20"] + mode, timeout: 300)
            XCTAssertEqual(run.status, 0, "bench-core \(mode): \(run.stdout)\(run.stderr)")
            let lines = run.stdout.split(separator: "\n").map(String.init)
            XCTAssertEqual(lines.filter { $0.hasPrefix("summary: ") }.count, 1, run.stdout)
            reports[mode.joined(separator: " ")] = lines.filter {
                $0.hasPrefix("events ") || $0.hasPrefix("outcomes ") || $0.hasPrefix("refusals ")
            }
        }
        let oneThread = reports["--threads 1"] ?? []
        XCTAssertEqual(oneThread.count, 3, "\(reports)")
        XCTAssertEqual(reports["--threads 2"], oneThread)
        XCTAssertEqual(reports["--split"], oneThread)
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
