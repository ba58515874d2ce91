import Foundation
import RelayNet
import RelayTestKit
import XCTest

extension LiveRelay {
    /// One provider API request over HTTP/2 with curl and a fresh development-key token: the status
    /// and the `apns-channel-id` answered, if any.
    @discardableResult
    func provider(
        _ method: String, _ path: String, headers: [String] = [], body: String? = nil,
        expect status: Int, file: StaticString = #filePath, line: UInt = #line
    ) throws -> String? {
        let jwt = try JWTSigner.makeProviderToken(
            teamID: "DEVTEAM000", keyID: "DEVKEY0000", issuedAt: Int64(Date().timeIntervalSince1970),
            key: devKey)
        var arguments = [
            "curl", "-sS", "--http2", "--cacert", caPath, "--max-time", "20", "-X", method, "-D", "-", "-H",
            "authorization: bearer \(jwt)",
        ]
        for header in headers { arguments += ["-H", header] }
        if let body { arguments += ["--data-binary", body] }
        let outcome = try ChildProcess.run(arguments + [base + path], timeout: 30)
        let lines = outcome.stdout.split(separator: "\r\n").map(String.init)
        XCTAssertEqual(lines.first, "HTTP/2 \(status) ", "\(method) \(path): \(outcome.stdout)", file: file, line: line)
        return lines.first { $0.hasPrefix("apns-channel-id: ") }.map { String($0.dropFirst(17)) }
    }
}
