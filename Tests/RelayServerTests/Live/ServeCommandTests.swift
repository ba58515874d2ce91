import Foundation
import RelayTestKit
import XCTest

/// `activity-relay serve` and `token` as a user runs them.
final class ServeCommandTests: XCTestCase {
    func testServeCreatesItsDataDirAnswersAndStopsCleanlyOnSIGTERM() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)").path
        let port = try RelayBinary.freePort()
        let relay = try RelayBinary.serve(data: data, port: port)
        for name in ["tls-cert.pem", "tls-key.pem", "admin-key", "dev-provider-key.p8", "relay.sqlite"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: data + "/" + name), name)
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: data + "/admin-key")
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let token = try ChildProcess.run([RelayBinary.path, "token", "--data", data])
        XCTAssertEqual(token.status, 0)
        XCTAssertEqual(token.stdout.split(separator: ".").count, 3, "a JWT has three parts")
        kill(relay.processIdentifier, SIGTERM)
        let outcome = try relay.wait(timeout: 20)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("relay.listening"), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("curl --cacert"), "startup says how to reach it")
        XCTAssertTrue(outcome.stderr.contains("relay.stopped"), outcome.stderr)
    }

    func testBadFlagsAreOneLineAndExitStatus2() throws {
        for arguments in [["--listen", "nope"], ["--threads", "0"], ["--clock", "sundial"], ["--bogus"]] {
            let outcome = try ChildProcess.run([RelayBinary.path, "serve"] + arguments)
            XCTAssertEqual(outcome.status, 2, arguments.joined(separator: " "))
            XCTAssertEqual(outcome.stderr.split(separator: "\n").count, 1, outcome.stderr)
        }
    }
}
