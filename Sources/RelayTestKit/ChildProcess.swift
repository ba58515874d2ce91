import Foundation
import XCTest

// Shared by the test targets that drive real clients (curl, python3, openssl, h2load).

/// A tool run by a test (python3, curl, openssl), its stdin kept open until `closeInput`.
package final class ChildProcess {
    /// What the process left behind.
    package struct Outcome: Sendable {
        package var status: Int32
        package var stdout: String
        package var stderr: String
    }

    private let process = Process()
    /// Readers that empty the pipes from the start, so a chatty child never blocks on a full pipe.
    private var stdoutDrain: Drain?
    private var stderrDrain: Drain?
    /// The child's process id (for signals).
    package var processIdentifier: Int32 { process.processIdentifier }
    /// Whether it still runs.
    package var isRunning: Bool { process.isRunning }
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()

    /// Starts `arguments[0]` (looked up on PATH) with the rest as its arguments.
    package init(_ arguments: [String], environment: [String: String]? = nil) throws {
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        stdoutDrain = Drain(output.fileHandleForReading)
        stderrDrain = Drain(errors.fileHandleForReading)
    }

    /// Runs `arguments` with empty stdin and waits for it.
    package static func run(_ arguments: [String], timeout: Double = 60, environment: [String: String]? = nil) throws
        -> Outcome
    {
        let child = try ChildProcess(arguments, environment: environment)
        child.closeInput()
        return try child.wait(timeout: timeout)
    }

    /// Closes the child's stdin (the `hold` client's cue to close its connections).
    package func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    /// Waits up to `timeout` seconds for exit, killing the process and failing if it takes longer.
    package func wait(timeout: Double = 60, file: StaticString = #filePath, line: UInt = #line) throws -> Outcome {
        let deadline = Date().addingTimeInterval(timeout)
        let stdout = stdoutDrain ?? Drain(output.fileHandleForReading)
        let stderr = stderrDrain ?? Drain(errors.fileHandleForReading)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            process.terminate()
            XCTFail("process \(process.arguments ?? []) still running after \(timeout) s", file: file, line: line)
        }
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, stdout: stdout.text(), stderr: stderr.text())
    }

    /// Reads a pipe to its end on its own thread, so a chatty child never blocks on a full pipe.
    private final class Drain: @unchecked Sendable {  // Sendable: `data` is guarded by `done`.
        private var data = Data()
        private let done = DispatchSemaphore(value: 0)

        init(_ handle: FileHandle) {
            Thread.detachNewThread { [self] in
                data = handle.readDataToEndOfFile()
                try? handle.close()
                done.signal()
            }
        }

        func text() -> String {
            _ = done.wait(timeout: .now() + 10)
            return String(decoding: data, as: UTF8.self)
        }
    }
}
