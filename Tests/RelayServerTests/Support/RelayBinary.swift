import Foundation
import RelayTestKit
import XCTest

/// The built `activity-relay` executable (beside the test bundle), and a relay process started from it.
enum RelayBinary {
    static var path: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("activity-relay").path
    }

    /// A free loopback port (bound and released; good enough for a test that binds it right after).
    static func freePort() throws -> UInt16 {
        let outcome = try ChildProcess.run(
            ["python3", "-c", "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"])
        guard let port = UInt16(outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw RelayBinaryError(message: "no free port: \(outcome.stderr)")
        }
        return port
    }

    /// Starts `activity-relay serve` with `arguments` and waits until `/healthz` answers.
    static func serve(data: String, port: UInt16, extra: [String] = []) throws -> ChildProcess {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: path), "build the package first: missing \(path)")
        let child = try ChildProcess([path, "serve", "--data", data, "--listen", "127.0.0.1:\(port)"] + extra)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let probe = try ChildProcess.run(
                [
                    "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", data + "/tls-cert.pem",
                    "https://localhost:\(port)/healthz",
                ], timeout: 5)
            if probe.stdout == "200" { return child }
            usleep(100_000)
        }
        kill(child.processIdentifier, SIGKILL)
        throw RelayBinaryError(message: "activity-relay serve did not come up on port \(port)")
    }
}

/// A relay process that could not be started (the test fails with this).
struct RelayBinaryError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
