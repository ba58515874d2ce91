import Foundation
import RelayCore
import RelayNet
import RelayServer
import RelayTestKit
import XCTest

/// Provider-token rules per connection, GOAWAY with APNs' JSON reasons, the one-stream gate and
/// the HTTP/1.1 refusal, through the live relay.
final class ProviderConnectionLiveTests: XCTestCase {
    private var provider: ProviderRelay!

    override func tearDown() {
        provider?.stop()
        provider = nil
    }

    private func start(_ configure: (inout RelayRuntime.Options) -> Void = { _ in }) throws {
        provider = try ProviderRelay(configure: configure)
    }

    /// A push to `token` with `authorization` (nil: none).
    private func push(_ token: String, authorization: String?) -> [String: Any] {
        var headers: [(String, String)] = [("apns-topic", ProviderRelay.topic), ("apns-push-type", "liveactivity")]
        if let authorization { headers.append(("authorization", authorization)) }
        let body = #"{"aps":{"event":"update","timestamp":\#(ProviderRelay.now(minus: 0)),"content-state":{"n":1}}}"#
        return H2Request(path: "/3/device/\(token)", headers: headers, body: body).json
    }

    private func activityToken() throws -> String {
        let device = try provider.makeDevice()
        return try XCTUnwrap(try provider.startActivity(deviceId: device.id).token)
    }

    func testProviderTokenReasons() throws {
        try start()
        let token = try activityToken()
        let stranger = try P256PrivateKey()
        let forged = try JWTSigner.makeProviderToken(
            teamID: DataDirectory.devTeamID, keyID: DataDirectory.devKeyID, issuedAt: ProviderRelay.now(minus: 0),
            key: stranger)
        let unknownKey = try JWTSigner.makeProviderToken(
            teamID: DataDirectory.devTeamID, keyID: "NOSUCHKEY0", issuedAt: ProviderRelay.now(minus: 0), key: stranger)
        let issuedAt = ProviderRelay.now(minus: 0)
        let valid = try JWTSigner.makeProviderToken(
            teamID: DataDirectory.devTeamID, keyID: DataDirectory.devKeyID, issuedAt: issuedAt,
            key: provider.data.devProviderKey)
        // Validly signed by the right key, but with a critical extension the relay does not know.
        let critHeader = #"{"alg":"ES256","kid":"DEVKEY0000","crit":["exp"],"exp":1}"#
        let critClaims = #"{"iss":"DEVTEAM000","iat":\#(issuedAt)}"#
        let critInput = Base64URL.encode(Array(critHeader.utf8)) + "." + Base64URL.encode(Array(critClaims.utf8))
        let critical =
            critInput + "."
            + Base64URL.encode(try ES256.sign(Array(critInput.utf8), key: provider.data.devProviderKey))
        let table: [(String?, Int, String?)] = [
            (nil, 403, "MissingProviderToken"),
            ("bearer \(critical)", 403, "InvalidProviderToken"),
            ("bearer", 403, "MissingProviderToken"),
            ("basic dXNlcjpwYXNz", 403, "InvalidProviderToken"),
            ("bearer not.a.jwt", 403, "InvalidProviderToken"),
            ("bearer \(forged)", 403, "InvalidProviderToken"),
            ("bearer \(unknownKey)", 403, "InvalidProviderToken"),
            ("bearer \(try provider.devToken(age: 3700))", 403, "ExpiredProviderToken"),
            ("bearer \(valid)", 200, nil),
        ]
        let result = try XCTUnwrap(
            try provider.h2([["requests": table.map { push(token, authorization: $0.0) }]]).first)
        for ((authorization, status, reason), answer) in zip(table, result.answers) {
            let label = String((authorization ?? "none").prefix(30))
            XCTAssertEqual(answer.status, status, label)
            XCTAssertEqual(answer.reason, reason, label)
        }
        // The log never holds the token itself.
        let logged = try provider.pushLog("token=\(token)&limit=1")
        let headers = try XCTUnwrap(logged.first?["headers"] as? [String: String])
        XCTAssertEqual(headers["authorization"], "bearer (redacted; kid=DEVKEY0000 iss=DEVTEAM000 iat=\(issuedAt))")
    }

    func testANewTokenWithinTwentyMinutesIsRefusedAndTheAcceptedOneKeepsWorking() throws {
        try start()
        let token = try activityToken()
        let first = try provider.devToken()
        let second = try provider.devToken(age: 5)
        let result = try XCTUnwrap(
            try provider.h2([
                [
                    "requests": [
                        push(token, authorization: "bearer \(first)"), push(token, authorization: "bearer \(second)"),
                        push(token, authorization: "bearer \(first)"),
                    ]
                ]
            ]).first)
        XCTAssertEqual(result.answers.map(\.status), [200, 429, 200])
        XCTAssertEqual(result.answers[1].reason, "TooManyProviderTokenUpdates")
        XCTAssertNil(result.goaway, "the connection stays open; only the new token is refused")
    }

    func testATokenOfAnotherTeamOnTheSameConnectionIsUnrelatedKeyIdInToken() throws {
        try start()
        let token = try activityToken()
        let result = try XCTUnwrap(
            try provider.h2([
                [
                    "requests": [
                        push(token, authorization: "bearer \(try provider.devToken())"),
                        push(token, authorization: "bearer \(try provider.otherTeamToken())"),
                    ]
                ]
            ]).first)
        XCTAssertEqual(result.answers.map(\.status), [200, 403])
        XCTAssertEqual(result.answers[1].reason, "UnrelatedKeyIdInToken")
    }

    func testRefusalsInARowCloseTheConnectionWithAGoawayReason() throws {
        try start { $0.routeSettings.providerRefusalLimit = 3 }
        let jwt = "bearer \(try provider.devToken())"
        let unknown = String(repeating: "0f", count: 32)
        var connection = ["requests": (0..<3).map { _ in push(unknown, authorization: jwt) }] as [String: Any]
        connection["waitGoaway"] = 5
        let result = try XCTUnwrap(try provider.h2([connection]).first)
        XCTAssertEqual(result.answers.map(\.status), [400, 400, 400], "every refusal is still answered")
        XCTAssertEqual(result.goaway?.code, 0)
        XCTAssertEqual(result.goaway?.data, #"{"reason":"BadDeviceToken"}"#)
        XCTAssertTrue(result.closed)
    }

    func testASuccessResetsTheRefusalCount() throws {
        try start { $0.routeSettings.providerRefusalLimit = 3 }
        let jwt = "bearer \(try provider.devToken())"
        let good = try activityToken()
        let unknown = String(repeating: "0f", count: 32)
        var connection =
            ["requests": [unknown, unknown, good, unknown, unknown].map { push($0, authorization: jwt) }]
            as [String: Any]
        connection["waitGoaway"] = 1
        let result = try XCTUnwrap(try provider.h2([connection]).first)
        XCTAssertEqual(result.answers.map(\.status), [400, 400, 200, 400, 400])
        XCTAssertNil(result.goaway)
    }

    func testAnIdleConnectionGetsGoawayIdleTimeout() throws {
        try start { $0.httpLimits.idleTimeout = 0.5 }
        var connection =
            ["requests": [push(try activityToken(), authorization: "bearer \(try provider.devToken())")]]
            as [String: Any]
        connection["waitGoaway"] = 5
        let result = try XCTUnwrap(try provider.h2([connection]).first)
        XCTAssertEqual(result.answers.first?.status, 200)
        XCTAssertEqual(result.goaway?.data, #"{"reason":"IdleTimeout"}"#)
    }

    func testAValidTokenLiftsTheOneStreamGate() throws {
        try start { $0.httpLimits.gateUntilAuthenticated = true }
        let token = try activityToken()
        var burst = H2Request(path: "/3/device/\(token)")
        burst.headers = [("apns-topic", ProviderRelay.topic), ("authorization", "bearer \(try provider.devToken())")]
        burst.body = #"{"aps":{"event":"update","timestamp":\#(ProviderRelay.now(minus: 0)),"content-state":{}}}"#
        var many = burst
        many.repeatCount = 5
        let result = try XCTUnwrap(try provider.h2([["requests": [burst.json, many.json]]]).first)
        XCTAssertEqual(result.answers.map(\.status), Array(repeating: 200, count: 6))
    }

    func testWithoutALPNTheFirstBytesChooseTheProtocol() throws {
        try start { $0.httpLimits.headerReadTimeout = 0.5 }
        // HTTP/1.1 without ALPN (HTTP/2 without ALPN is what aioapns does: AioapnsLiveTests).
        let http1 = try provider.relay.curl([
            "--no-alpn", "--http1.1", "-w", " %{http_version}", "\(provider.relay.base)/healthz",
        ])
        XCTAssertTrue(http1.stdout.hasSuffix(" 1.1"), http1.stdout + http1.stderr)
        XCTAssertTrue(http1.stdout.contains(#""protocol":"http/1.1""#), http1.stdout)
        // A client without ALPN that says nothing is closed after the header timeout.
        let script = """
            import socket, ssl, sys, time
            ctx = ssl.create_default_context(cafile=sys.argv[2])
            s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[1]))), server_hostname="localhost")
            s.settimeout(10)
            start = time.time()
            data = s.recv(100)
            print(len(data), round(time.time() - start, 1))
            """
        let silent = try ChildProcess.run(
            ["python3", "-c", script, String(provider.port), provider.caPath], timeout: 30)
        let fields = silent.stdout.split(separator: " ")
        XCTAssertEqual(fields.first, "0", silent.stdout + silent.stderr)
        XCTAssertLessThan(Double(fields.last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 99, 5)
    }

    func testOverHTTP1TheProviderAPIAnswers505() throws {
        try start()
        let outcome = try provider.relay.curl([
            "--http1.1", "-w", "\\n%{http_code}", "-H", "apns-topic: \(ProviderRelay.topic)", "--data", "{}",
            "\(provider.relay.base)/3/device/\(String(repeating: "ab", count: 32))",
        ])
        XCTAssertTrue(outcome.stdout.hasSuffix("\n505"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains(#""reason":"HTTPVersionNotSupported""#), outcome.stdout)
    }
}
