import Foundation
import RelayCore
import RelayJSON
import RelayTestKit
import XCTest

/// The app API over the network with curl (HTTP/2), as a user calls it.
struct AppAPIClient {
    var base: String
    var caPath: String
    var key: String

    init(base: String, caPath: String, key: String) {
        self.base = base
        self.caPath = caPath
        self.key = key
    }

    init(relay: LiveRelay, key: String = LiveRelay.adminKey) {
        self.init(base: relay.base, caPath: relay.caPath, key: key)
    }

    /// Sends one request; the status and the JSON body (null when there is none).
    func send(
        _ method: String, _ path: String, json: JSONValue? = nil, file: StaticString = #filePath, line: UInt = #line
    ) throws -> (status: Int, json: JSONValue) {
        var arguments = [
            "curl", "-sS", "--http2", "--cacert", caPath, "--max-time", "20", "-X", method, "-H",
            "authorization: Bearer \(key)", "-w", "\n%{http_code}",
        ]
        if let json { arguments += ["-H", "content-type: application/json", "--data-binary", json.jsonString] }
        let outcome = try ChildProcess.run(arguments + [base + path], timeout: 30)
        XCTAssertEqual(outcome.status, 0, outcome.stderr, file: file, line: line)
        let lines = outcome.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.last ?? "") ?? 0
        let body = lines.dropLast().joined(separator: "\n")
        return (status, body.isEmpty ? .null : (try? JSONValue(parsing: body)) ?? .string(body))
    }

    /// Sends one request that must answer `status`; returns the JSON body.
    @discardableResult
    func expect(
        _ status: Int, _ method: String, _ path: String, json: JSONValue? = nil, file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> JSONValue {
        let reply = try send(method, path, json: json, file: file, line: line)
        XCTAssertEqual(reply.status, status, "\(method) \(path): \(reply.json)", file: file, line: line)
        return reply.json
    }
}
