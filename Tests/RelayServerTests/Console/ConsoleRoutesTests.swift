import Foundation
import RelayCore
import RelayJSON
import RelayNet
import RelayTestKit
import XCTest

/// The console's files and calls over a live relay: headers, revalidation, who may mint tokens.
final class ConsoleRoutesTests: XCTestCase {
    var relay: LiveRelay!

    override func setUpWithError() throws { relay = try LiveRelay() }
    override func tearDown() { relay?.stop() }

    /// Status line and headers (lowercased names) of `curl -D -` output.
    private func head(_ arguments: [String]) throws -> (status: Int, headers: [String: String], body: String) {
        let outcome = try relay.curl(["-D", "/dev/stderr"] + arguments)
        var headers: [String: String] = [:]
        var status = 0
        for line in outcome.stderr.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("HTTP/") {
                status = Int(line.split(separator: " ")[1]) ?? 0
            } else if let colon = line.firstIndex(of: ":") {
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                    .trimmingCharacters(in: .whitespaces)
            }
        }
        return (status, headers, outcome.stdout)
    }

    func testPageCarriesStrictPolicyAndRevalidatesByEtag() throws {
        let page = try head([relay.base + "/"])
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.headers["content-type"], "text/html; charset=utf-8")
        XCTAssertEqual(page.headers["cache-control"], "no-cache")
        let policy = try XCTUnwrap(page.headers["content-security-policy"])
        for directive in ["default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"] {
            XCTAssertTrue(policy.contains(directive), policy)
        }
        XCTAssertFalse(policy.contains("unsafe"), policy)
        XCTAssertTrue(page.body.contains("/console/console.js"))
        let etag = try XCTUnwrap(page.headers["etag"])
        let again = try head(["-H", "if-none-match: W/\"other\", \(etag)", relay.base + "/"])
        XCTAssertEqual(again.status, 304)
        XCTAssertEqual(again.body, "")
        XCTAssertEqual(try head(["-H", "if-none-match: \"other\"", relay.base + "/"]).status, 200)
    }

    func testEveryFileThePageNamesIsServedFromThisOriginOnly() throws {
        let page = try head([relay.base + "/"]).body
        let expected = [
            "/console/console.js": "text/javascript; charset=utf-8", "/console/console.css": "text/css; charset=utf-8",
            "/console/icon.svg": "image/svg+xml",
        ]
        for (path, type) in expected {
            XCTAssertTrue(page.contains("\"\(path)\""), "the page does not name \(path)")
            let file = try head([relay.base + path])
            XCTAssertEqual(file.status, 200, path)
            XCTAssertEqual(file.headers["content-type"], type, path)
            XCTAssertNotNil(file.headers["etag"], path)
            if path != "/console/icon.svg" {
                XCTAssertFalse(file.body.contains("http://") || file.body.contains("https://"), "\(path) names a URL")
            }
        }
        XCTAssertFalse(page.contains("http://") || page.contains("https://"), "the page names a URL")
        XCTAssertFalse(page.contains("<script>") || page.contains("style="), "inline code breaks the policy")
        let missing = try head([relay.base + "/console/nothing.js"])
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(try head(["-X", "POST", relay.base + "/console/console.js"]).status, 405)
    }

    func testOnlyTheAdminMayMintProviderTokensAndTheyAreAccepted() throws {
        let created = try JSONValue(
            parsing: try relay.curl([
                "-X", "POST", "-H", "authorization: Bearer \(LiveRelay.adminKey)", relay.base + "/v1/devices",
            ]).stdout)
        let deviceKey = try XCTUnwrap(created["deviceKey"]?.stringValue)
        let path = relay.base + "/console/provider-token"

        XCTAssertEqual(try head(["-X", "POST", path]).status, 401)
        XCTAssertEqual(try head(["-X", "POST", "-H", "authorization: Bearer wrong", path]).status, 401)
        let device = try head(["-X", "POST", "-H", "authorization: Bearer \(deviceKey)", path])
        XCTAssertEqual(device.status, 403)
        XCTAssertTrue(device.body.contains("admin key"), device.body)
        let me = try JSONValue(
            parsing: try head(["-H", "authorization: Bearer \(deviceKey)", relay.base + "/console/me"]).body)
        XCTAssertEqual(me["principal"]?.stringValue, "device")
        XCTAssertEqual(me["canSendPushes"], .bool(false))

        let admin = try head(["-X", "POST", "-H", "authorization: Bearer \(LiveRelay.adminKey)", path])
        XCTAssertEqual(admin.status, 201)
        XCTAssertEqual(admin.headers["cache-control"], "no-store")
        let token = try XCTUnwrap(try JSONValue(parsing: admin.body)["token"]?.stringValue)
        // The provider API takes the token: an unknown device token is 410/400, never 403.
        let push = try head([
            "--http2", "-X", "POST", "-H", "authorization: bearer \(token)", "-H", "apns-push-type: liveactivity",
            "-H", "apns-topic: com.example.app.push-type.liveactivity", "-d",
            #"{"aps":{"timestamp":1,"event":"update","content-state":{}}}"#,
            relay.base + "/3/device/" + String(repeating: "ab", count: 32),
        ])
        XCTAssertNotEqual(push.status, 403, push.body)
        XCTAssertFalse(push.body.contains("InvalidProviderToken"), push.body)
    }
}
