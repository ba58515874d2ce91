import Foundation
import XCTest

/// A tool run by a test (python3, curl, openssl), its stdin kept open until `closeInput`.
final class ChildProcess {
    /// What the process left behind.
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()

    /// Starts `arguments[0]` (looked up on PATH) with the rest as its arguments.
    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    /// Runs `arguments` with empty stdin and waits for it.
    static func run(_ arguments: [String], timeout: Double = 60) throws -> Outcome {
        let child = try ChildProcess(arguments)
        child.closeInput()
        return try child.wait(timeout: timeout)
    }

    /// Runs the Python TLS client fixture in `mode` with `arguments`.
    static func python(_ mode: String, _ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(["python3", "-c", PythonTLSClient.script, mode] + arguments)
    }

    /// Closes the child's stdin (the `hold` client's cue to close its connections).
    func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    /// Waits up to `timeout` seconds for exit, killing the process and failing if it takes longer.
    func wait(timeout: Double = 60, file: StaticString = #filePath, line: UInt = #line) throws -> Outcome {
        let deadline = Date().addingTimeInterval(timeout)
        let stdout = Drain(output.fileHandleForReading)
        let stderr = Drain(errors.fileHandleForReading)
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
