import Foundation
import RelayCore
import RelayJSON
import XCTest

@testable import RelayCore
@testable import RelayServer

/// The docs agree with the config parser: `deploy/relay.example.json` sets every key the parser
/// knows and nothing else, and every config key the README names is one of them.
final class ConfigDocumentationTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    private static let examplePath = root.appendingPathComponent("deploy/relay.example.json").path

    /// The keys the parser accepts in each object of the config file, by the object's path.
    private static let accepted: [String: Set<String>] = [
        "": RelayConfiguration.fileKeys, "tls": TLSFiles.keys, "providerKeys[]": ProviderKeyConfiguration.keys,
        "rules": RelayRules.keys, "http": HTTPLimits.keys, "retention": LogRetention.keys,
        "durability": DurabilitySettings.keys, "stream": StreamSettings.keys, "console": ConsoleSettings.keys,
    ]

    /// Every key path in `value`: `stream.heartbeatSeconds`, `providerKeys[].keyId`, ...
    private static func paths(_ value: JSONValue, prefix: String = "") -> [String] {
        switch value {
        case .object(let object):
            return object.keys.flatMap { key -> [String] in
                let path = prefix.isEmpty ? key : prefix + "." + key
                return [path] + paths(object[key] ?? .null, prefix: path)
            }
        case .array(let elements):
            return elements.flatMap { paths($0, prefix: prefix + "[]") }
        default:
            return []
        }
    }

    private func example() throws -> JSONValue {
        try JSONValue(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: Self.examplePath))))
    }

    /// Keys the example leaves out on purpose: `store` turns on cluster mode, which needs a Redis
    /// Cluster; deploy/CONFIG.md documents it and `testCONFIGDocumentsClusterMode` checks that.
    private static let leftOut: Set<String> = ["store"]

    func testTheExampleSetsEveryKeyTheParserAccepts() throws {
        let paths = Set(Self.paths(try example()))
        for (object, keys) in Self.accepted {
            for key in keys where !Self.leftOut.contains(object.isEmpty ? key : object + "." + key) {
                let path = object.isEmpty ? key : object + "." + key
                XCTAssertTrue(paths.contains(path), "deploy/relay.example.json lacks \(path)")
            }
        }
        _ = try RelayConfiguration.parse(arguments: ["--config", Self.examplePath], workingDirectory: "/")
    }

    func testCONFIGDocumentsClusterMode() throws {
        let config = try String(contentsOf: Self.root.appendingPathComponent("deploy/CONFIG.md"), encoding: .utf8)
        for key in ClusterSettings.keys {
            XCTAssertTrue(
                config.contains("`store.redisCluster.\(key)`"), "deploy/CONFIG.md lacks store.redisCluster.\(key)")
        }
    }

    func testEveryConfigKeyTheReadmeNamesIsAccepted() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let sections = Self.accepted.keys.filter { !$0.isEmpty && !$0.hasSuffix("[]") }
        let pattern = #"`(\#(sections.sorted().joined(separator: "|")))\.([A-Za-z]+)`"#
        let regex = try NSRegularExpression(pattern: pattern)
        let text = readme as NSString
        var named: [(section: String, key: String)] = []
        for match in regex.matches(in: readme, range: NSRange(location: 0, length: text.length)) {
            named.append((text.substring(with: match.range(at: 1)), text.substring(with: match.range(at: 2))))
        }
        for key in try NSRegularExpression(pattern: #"config key `([A-Za-z]+)`"#).matches(
            in: readme, range: NSRange(location: 0, length: text.length))
        {
            named.append(("", text.substring(with: key.range(at: 1))))
        }
        XCTAssertGreaterThan(named.count, 5, "the README names config keys")
        for (section, key) in named {
            XCTAssertTrue(
                Self.accepted[section]?.contains(key) == true,
                "the README names `\(section.isEmpty ? key : section + "." + key)`, which the config does not accept")
        }
    }
}
