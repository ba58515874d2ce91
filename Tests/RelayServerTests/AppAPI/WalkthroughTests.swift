import Foundation
import RelayTestKit
import XCTest

/// The curl walk-through in the README works as written: its commands are exactly the
/// fixture script's, and the script run against `activity-relay serve --clock virtual` prints
/// exactly the outputs the document shows.
final class WalkthroughTests: XCTestCase {
    private static let readme = Fixtures.repositoryRoot.appendingPathComponent("README.md").path

    /// The README's walk-through section (up to the next `## ` heading).
    static func walkthrough() throws -> String {
        let text = try String(contentsOfFile: readme, encoding: .utf8)
        guard let start = text.range(of: "## Walk-through") else { return "" }
        let rest = text[start.upperBound...]
        let end = rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }
    private static let script = Fixtures.path("walkthrough.sh")

    /// The fenced blocks of `markdown` whose info string is `language`, without their fences.
    static func blocks(_ language: String, in markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if var lines = current {
                if line == "```" {
                    blocks.append(lines.joined(separator: "\n"))
                    current = nil
                } else {
                    lines.append(line)
                    current = lines
                }
            } else if line == "```" + language {
                current = []
            }
        }
        return blocks
    }

    func testScriptHoldsExactlyTheDocumentsCommands() throws {
        let markdown = try Self.walkthrough()
        let commands = Self.blocks("sh", in: markdown)
        XCTAssertEqual(commands.count, 5)
        let script = try String(contentsOfFile: Self.script, encoding: .utf8)
        let header = script.components(separatedBy: "\n\n").first ?? ""
        XCTAssertEqual(script, header + "\n\n" + commands.joined(separator: "\n\n") + "\n")
        XCTAssertTrue(
            Self.blocks("shell", in: markdown).first?.contains("activity-relay serve --clock virtual") == true)
    }

    func testWalkthroughPrintsWhatTheDocumentShows() throws {
        let markdown = try Self.walkthrough()
        let expected = Self.blocks("json", in: markdown).joined(separator: "\n") + "\n"

        let data = FileManager.default.temporaryDirectory.appendingPathComponent("walkthrough-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let port = try RelayBinary.freePort()
        let relay = try RelayBinary.serve(data: data, port: port, extra: ["--clock", "virtual"])
        defer {
            kill(relay.processIdentifier, SIGTERM)
            _ = try? relay.wait(timeout: 20)
        }
        let admin = try String(contentsOfFile: data + "/admin-key", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let outcome = try ChildProcess.run(
            ["sh", Self.script], timeout: 60,
            environment: ["PORT": String(port), "CA": data + "/tls-cert.pem", "ADMIN": admin])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(outcome.stdout, expected, outcome.stderr)
    }
}
