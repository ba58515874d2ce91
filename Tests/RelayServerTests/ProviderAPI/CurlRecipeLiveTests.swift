import Foundation
import RelayCore
import RelayTestKit
import XCTest

/// Apple's curl recipe, exactly as the README prints it (JWT from
/// `activity-relay token`), run by bash against the live relay; only the port is changed.
final class CurlRecipeLiveTests: XCTestCase {
    private var provider: ProviderRelay!

    override func tearDown() {
        provider?.stop()
        provider = nil
    }

    /// The package root, from this file's path.
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The shell block between `<!-- recipe:start -->` and `<!-- recipe:end -->`.
    private static func recipe() throws -> String {
        let text = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try XCTUnwrap(text.range(of: "<!-- recipe:start -->\n```sh\n"))
        let end = try XCTUnwrap(text.range(of: "```\n<!-- recipe:end -->"))
        return String(text[start.upperBound..<end.lowerBound])
    }

    func testApplesRecipeWorksAsWritten() throws {
        provider = try ProviderRelay()
        let device = try provider.makeDevice()
        let activity = try provider.startActivity(deviceId: device.id)
        let token = try XCTUnwrap(activity.token)
        // At once: the recipe's whole-second timestamp is the activity's start second.

        let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
        XCTAssertTrue(
            FileManager.default.isExecutableFile(atPath: binaries + "/activity-relay"),
            "activity-relay is built beside the tests")
        let workspace = URL(fileURLWithPath: provider.data.path).deletingLastPathComponent()
            .appendingPathComponent("recipe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workspace) }
        try FileManager.default.createSymbolicLink(
            atPath: workspace.appendingPathComponent(".relay").path, withDestinationPath: provider.data.path)
        let script = try Self.recipe().replacingOccurrences(of: "localhost:8443", with: "localhost:\(provider.port)")
        XCTAssertTrue(script.contains("localhost:\(provider.port)"))

        let outcome = try ChildProcess.run(
            ["bash", "-c", "cd '\(workspace.path)' && " + script], timeout: 60,
            environment: [
                "BUNDLE": ProviderRelay.bundle, "ACTIVITY_PUSH_TOKEN": token,
                "PATH": binaries + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
            ])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("< HTTP/2 200"), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("< apns-id: "), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("< apns-unique-id: "), outcome.stderr)
        XCTAssertEqual(outcome.stdout, "", "a 200 has an empty body")

        let logged = try XCTUnwrap(try provider.pushLog("token=\(token)").first)
        XCTAssertEqual(logged["outcome"] as? String, "applied", "\(logged)")
        XCTAssertEqual(
            try provider.activity(activity.id)["contentState"]?["eventDescription"], "Power Panda found a sword!")
    }
}
