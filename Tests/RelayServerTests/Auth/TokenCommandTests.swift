import Foundation
import RelayCore
import RelayJSON
import RelayNet
import RelayServer
import XCTest

/// `activity-relay token`, run as the built binary (`swift test` builds it beside the test bundle).
final class TokenCommandTests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws { scratch = try ScratchDirectory() }
    override func tearDown() { scratch.remove() }

    private var binary: String {
        get throws {
            let tests = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            let path = URL(fileURLWithPath: tests).deletingLastPathComponent().appendingPathComponent("activity-relay")
                .path
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw XCTSkip("activity-relay is not built at \(path); run `swift build` first")
            }
            return path
        }
    }

    private func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try binary)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self)
        )
    }

    /// Prepares `name` (relative to the scratch directory) as `serve` does on its first start.
    private func prepare(_ name: String) throws {
        var configuration = RelayConfiguration(workingDirectory: scratch.path)
        configuration.dataDirectory = scratch.file(name)
        _ = try DataDirectory.prepare(configuration)
    }

    func testADirectoryWithoutAKeyIsAnErrorAndNothingIsCreated() throws {
        for arguments in [["token", "--data", "fresh"], ["token"]] {
            let result = try run(arguments)
            XCTAssertEqual(result.status, 2, result.stderr)
            XCTAssertEqual(result.stdout, "")
            XCTAssertTrue(result.stderr.contains("has no development key (dev-provider-key.p8)"), result.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.file("fresh")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.file(".relay")))
        try FileManager.default.createDirectory(atPath: scratch.file("empty"), withIntermediateDirectories: false)
        try scratch.chmod(scratch.file("empty"), 0o700)
        XCTAssertEqual(try run(["token", "--data", "empty"]).status, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.file("empty/dev-provider-key.p8")))
    }

    func testTokenPrintsOneFreshJWTThatVerifiesAgainstTheP8() throws {
        try prepare("relay-data")
        let before = Date().timeIntervalSince1970.rounded(.down)
        let result = try run(["token", "--data", "relay-data"])
        let after = Date().timeIntervalSince1970
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
        XCTAssertTrue(result.stdout.hasSuffix("\n"))
        let lines = result.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 1)

        let token = try ProviderToken.parse(token: String(lines[0])) { try JSONValue(parsing: $0) }.get()
        XCTAssertEqual(token.keyID, "DEVKEY0000")
        XCTAssertEqual(token.teamID, "DEVTEAM000")
        XCTAssertGreaterThanOrEqual(token.issuedAt, before)
        XCTAssertLessThanOrEqual(token.issuedAt, after)
        let pem = String(decoding: try scratch.read("relay-data/dev-provider-key.p8"), as: UTF8.self)
        let publicKey = try P256PrivateKey(pem: pem).publicKey
        XCTAssertTrue(ES256.verify(signature: token.signature, message: token.signingInput, key: publicKey))
        XCTAssertEqual(try scratch.mode("relay-data"), 0o700)
        XCTAssertEqual(try scratch.mode("relay-data/admin-key"), 0o600)
        XCTAssertTrue(FileManager.default.fileExists(atPath: scratch.file("relay-data/tls-cert.pem")))

        // A second run signs with the same key.
        let again = try run(["token", "--data=relay-data"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try scratch.read("relay-data/dev-provider-key.p8"), Data(pem.utf8))
        let second = try ProviderToken.parse(token: again.stdout.trimmingCharacters(in: .newlines)) {
            try JSONValue(parsing: $0)
        }.get()
        XCTAssertTrue(ES256.verify(signature: second.signature, message: second.signingInput, key: publicKey))
    }

    func testTokenDefaultsToDotRelay() throws {
        try prepare(".relay")
        let result = try run(["token"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: scratch.file(".relay/dev-provider-key.p8")))
    }

    func testErrorsAreOneLineOnStderrWithStatus2() throws {
        try scratch.write("afile", "x")
        let table: [([String], String)] = [
            (
                ["token", "--listen", "x:1"],
                "activity-relay token: unknown option '--listen' (usage: token [--data DIR])\n"
            ),
            (["token", "--data"], "--data: needs a value (usage: token [--data DIR])\n"),
            (
                ["token", "--data", "afile"],
                "activity-relay token: \(scratch.file("afile")): cannot use \(scratch.file("afile")): it exists and is not a directory\n"
            ),
        ]
        for (arguments, expected) in table {
            let result = try run(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments)")
            XCTAssertEqual(result.stdout, "", "\(arguments)")
            XCTAssertEqual(result.stderr, expected, "\(arguments)")
        }
    }

    func testLooseDirectoryPermissionsWarnOnStderrButStillPrintTheToken() throws {
        try FileManager.default.createDirectory(atPath: scratch.file("open"), withIntermediateDirectories: false)
        try scratch.chmod(scratch.file("open"), 0o700)
        try prepare("open")
        try scratch.chmod(scratch.file("open"), 0o755)
        let result = try run(["token", "--data", "open"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout.split(separator: "\n").count, 1)
        XCTAssertEqual(
            result.stderr,
            "activity-relay token: warning: \(scratch.file("open")): group or others may list it (mode 0755); "
                + "chmod 700 \(scratch.file("open")) is recommended\n")
    }
}
