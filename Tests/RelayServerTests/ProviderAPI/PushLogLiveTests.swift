import Foundation
import RelayCore
import RelayStore
import RelayTestKit
import XCTest

/// `GET /v1/pushes` over the live relay: newest first, every filter, paging, and what the admin
/// key and a device key each see.
final class PushLogLiveTests: XCTestCase {
    private var provider: ProviderRelay!

    override func setUpWithError() throws { provider = try ProviderRelay() }

    override func tearDown() {
        provider?.stop()
        provider = nil
    }

    /// `curl` GET of `/v1/pushes?query`; the status and the JSON body.
    private func get(_ query: String, key: String?, http1: Bool = false) throws -> (Int, [String: Any]) {
        var arguments = [http1 ? "--http1.1" : "--http2", "-w", "\n%{http_code}"]
        if let key { arguments += ["-H", "authorization: bearer \(key)"] }
        let outcome = try provider.relay.curl(arguments + ["\(provider.relay.base)/v1/pushes?\(query)"])
        let lines = outcome.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.last ?? "") ?? 0
        let body = lines.dropLast().joined(separator: "\n")
        let json = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
        return (status, json)
    }

    private func update(_ token: String, apnsID: String, jwt: String) -> [String: Any] {
        H2Request(
            path: "/3/device/\(token)",
            headers: [
                ("apns-topic", ProviderRelay.topic), ("authorization", "bearer \(jwt)"), ("apns-id", apnsID),
            ],
            body: #"{"aps":{"event":"update","timestamp":\#(ProviderRelay.now(minus: -1)),"content-state":{"n":1}}}"#
        ).json
    }

    func testFiltersPagingAndWhoSeesWhat() throws {
        let alice = try provider.makeDevice()
        let bob = try provider.makeDevice()
        let channel = try provider.createChannel()
        let aliceToken = try XCTUnwrap(try provider.startActivity(deviceId: alice.id).token)
        _ = try provider.startActivity(deviceId: alice.id, channel: channel)
        let bobToken = try XCTUnwrap(try provider.startActivity(deviceId: bob.id).token)
        let jwt = try provider.devToken()
        let ids = (0..<5).map { String(format: "00000000-0000-4000-8000-%012d", $0) }
        let broadcast = H2Request(
            path: "/4/broadcasts/apps/\(ProviderRelay.bundle)",
            headers: [
                ("authorization", "bearer \(jwt)"), ("apns-channel-id", channel), ("apns-push-type", "liveactivity"),
                ("apns-priority", "5"), ("apns-request-id", ids[4]),
            ],
            body: #"{"aps":{"event":"update","timestamp":\#(ProviderRelay.now(minus: -1)),"content-state":{"n":2}}}"#)
        let answers = try XCTUnwrap(
            try provider.h2([
                [
                    "requests": [
                        update(aliceToken, apnsID: ids[0], jwt: jwt), update(bobToken, apnsID: ids[1], jwt: jwt),
                        update(aliceToken, apnsID: ids[2], jwt: jwt),
                        update(String(repeating: "ee", count: 32), apnsID: ids[3], jwt: jwt), broadcast.json,
                    ]
                ]
            ]).first?.answers)
        XCTAssertEqual(answers.map(\.status), [200, 200, 200, 400, 200])
        let admin = provider.data.adminKey.secret

        let (status, all) = try get("", key: admin)
        XCTAssertEqual(status, 200)
        let items = try XCTUnwrap(all["items"] as? [[String: Any]])
        XCTAssertEqual(items.compactMap { $0["apnsId"] as? String }, ids.reversed(), "newest first")
        XCTAssertTrue(all["nextBefore"] is NSNull)

        func apnsIDs(_ query: String, key: String? = nil) throws -> [String] {
            let (status, body) = try get(query, key: key ?? admin)
            XCTAssertEqual(status, 200, query)
            return (body["items"] as? [[String: Any]] ?? []).compactMap { $0["apnsId"] as? String }
        }
        XCTAssertEqual(try apnsIDs("token=\(aliceToken)"), [ids[2], ids[0]])
        XCTAssertEqual(try apnsIDs("token=\(aliceToken.uppercased())"), [ids[2], ids[0]], "tokens match in any case")
        XCTAssertEqual(try apnsIDs("apnsId=\(ids[1])"), [ids[1]])
        let uniqueID = try XCTUnwrap(answers[1].headers["apns-unique-id"])
        XCTAssertEqual(try apnsIDs("uniqueId=\(uniqueID)"), [ids[1]])
        XCTAssertEqual(try apnsIDs("bundleId=com.example.nothing"), [])
        // A refused push is filed under the token and the app its request named.
        XCTAssertEqual(try apnsIDs("token=\(String(repeating: "EE", count: 32))"), [ids[3]])
        XCTAssertTrue(try apnsIDs("bundleId=\(ProviderRelay.bundle)").contains(ids[3]))
        let encodedChannel = try XCTUnwrap(channel.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        XCTAssertEqual(try apnsIDs("channelId=\(encodedChannel)"), [ids[4]])

        let (_, page1) = try get("limit=2", key: admin)
        XCTAssertEqual((page1["items"] as? [[String: Any]])?.compactMap { $0["apnsId"] as? String }, [ids[4], ids[3]])
        let next = try XCTUnwrap(page1["nextBefore"] as? Int)
        XCTAssertEqual(try apnsIDs("limit=2&before=\(next)"), [ids[2], ids[1]])

        // A device key sees its own tokens and channels only.
        XCTAssertEqual(try apnsIDs("", key: alice.key), [ids[4], ids[2], ids[0]])
        XCTAssertEqual(try apnsIDs("", key: bob.key), [ids[1]])
        XCTAssertEqual(try apnsIDs("token=\(aliceToken)", key: bob.key), [])
        XCTAssertEqual(try apnsIDs("limit=1", key: alice.key), [ids[4]])

        // The same over HTTP/1.1.
        XCTAssertEqual(try get("apnsId=\(ids[0])", key: admin, http1: true).0, 200)
    }

    /// Answers far larger than a page (400 entries of about 4.5 KB) are sent a page at a time,
    /// and their bytes are those one read of the store gives: the records joined in order, and
    /// `nextBefore` the last entry's id when `limit` entries were found, else null. Over HTTP/2
    /// and HTTP/1.1, from the newest entry and from `before`.
    func testLargeAnswersAreTheBytesOfOneStoreRead() throws {
        let jwt = try provider.devToken()
        func seed() throws {
            let seeded = try ChildProcess.run(
                [
                    "python3", Fixtures.path("hostile_client.py"), "seed-pushes", "--port", String(provider.port),
                    "--cafile", provider.caPath, "--jwt", jwt, "--count", "200",
                ], timeout: 120)
            XCTAssertTrue(seeded.stdout.contains(#""answered": 200"#), seeded.stdout + seeded.stderr)
        }
        // A device's ten pushes among 400 it may not see.
        let alice = try provider.makeDevice()
        let aliceToken = try XCTUnwrap(try provider.startActivity(deviceId: alice.id).token)
        try seed()
        let ids = (0..<10).map { String(format: "00000000-0000-4000-8000-%012d", $0) }
        let answers = try provider.h2([["requests": ids.map { update(aliceToken, apnsID: $0, jwt: jwt) }]])
        XCTAssertEqual(answers.first?.answers.map(\.status), Array(repeating: 200, count: 10))
        try seed()
        let reader = provider.service.store.reader
        let middle = try XCTUnwrap(try reader.pushes(limit: 200).last?.id)
        let admin = provider.data.adminKey.secret
        for (limit, before) in [(1000, nil), (400, nil), (137, nil), (150, middle), (1, middle)] as [(Int, Int64?)] {
            let rows = try reader.pushes(before: before, limit: limit)
            var expected = #"{"items":["#
            expected += rows.map { String(decoding: $0.push.record, as: UTF8.self) }.joined(separator: ",")
            expected += #"],"nextBefore":"# + (rows.count == limit ? String(rows[rows.count - 1].id) : "null") + "}"
            let query = "limit=\(limit)" + (before.map { "&before=\($0)" } ?? "")
            for version in ["--http2", "--http1.1"] {
                let outcome = try provider.relay.curl([
                    version, "-H", "authorization: bearer \(admin)", "\(provider.relay.base)/v1/pushes?\(query)",
                ])
                XCTAssertEqual(outcome.stdout.utf8.count, expected.utf8.count, "\(query) \(version)")
                XCTAssertTrue(outcome.stdout == expected, "\(query) \(version): the bytes differ")
            }
        }
        // A device key's scan reads a few rows at a time and finds what the admin's token filter does.
        for limit in [1000, 10, 3] {
            let mine = try provider.relay.curl([
                "-H", "authorization: bearer \(alice.key)", "\(provider.relay.base)/v1/pushes?limit=\(limit)",
            ])
            let filtered = try provider.relay.curl([
                "-H", "authorization: bearer \(admin)",
                "\(provider.relay.base)/v1/pushes?limit=\(limit)&token=\(aliceToken)",
            ])
            XCTAssertEqual(mine.stdout, filtered.stdout, "limit \(limit)")
            XCTAssertEqual(mine.stdout.components(separatedBy: #""apnsId""#).count - 1, min(limit, 10))
        }
        // HEAD over HTTP/1.1: the length of the body a GET gets.
        let head = try provider.relay.curl([
            "--http1.1", "-I", "-H", "authorization: bearer \(admin)", "\(provider.relay.base)/v1/pushes?limit=1000",
        ])
        let whole = try provider.relay.curl([
            "--http1.1", "-H", "authorization: bearer \(admin)", "\(provider.relay.base)/v1/pushes?limit=1000",
        ])
        XCTAssertTrue(head.stdout.lowercased().contains("content-length: \(whole.stdout.utf8.count)\r\n"), head.stdout)
    }

    /// An accepted body is logged as the JSON it was (its bytes, without the whitespace between
    /// tokens); a body that is not JSON is logged as its text.
    func testPayloadsAreLoggedAsSent() throws {
        let device = try provider.makeDevice()
        let token = try XCTUnwrap(try provider.startActivity(deviceId: device.id).token)
        let jwt = try provider.devToken()
        let ids = ["00000000-0000-4000-8000-0000000000a1", "00000000-0000-4000-8000-0000000000a2"]
        let pretty = """
            {
              "custom" : [ 1, "two words" ],
              "aps" : {
                "timestamp" : \(ProviderRelay.now(minus: -1)), "event" : "update",
                "content-state" : { "z" : "a \\" b", "a" : 1.5 }
              }
            }
            """
        func push(_ body: String, id: String) -> [String: Any] {
            H2Request(
                path: "/3/device/\(token)",
                headers: [("apns-topic", ProviderRelay.topic), ("authorization", "bearer \(jwt)"), ("apns-id", id)],
                body: body
            ).json
        }
        let answers = try XCTUnwrap(
            try provider.h2([["requests": [push(pretty, id: ids[0]), push("not json {", id: ids[1])]]]).first?.answers)
        XCTAssertEqual(answers.map(\.status), [200, 400])

        let (_, log) = try get("", key: provider.data.adminKey.secret)
        let items = try XCTUnwrap(log["items"] as? [[String: Any]])
        let accepted = try XCTUnwrap(items.first { $0["apnsId"] as? String == ids[0] })
        let sent = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(pretty.utf8)) as? NSDictionary)
        XCTAssertEqual(accepted["payload"] as? NSDictionary, sent)
        XCTAssertEqual(accepted["outcome"] as? String, "applied")
        let refused = try XCTUnwrap(items.first { $0["apnsId"] as? String == ids[1] })
        XCTAssertEqual(refused["payload"] as? String, "not json {")
        XCTAssertEqual(refused["reason"] as? String, "BadRequestPayload")
    }

    func testRefusals() throws {
        XCTAssertEqual(try get("", key: nil).0, 401)
        XCTAssertEqual(try get("", key: "not-a-key").1["error"] as? String, "unauthorized")
        let admin = provider.data.adminKey.secret
        for query in ["limit=0", "limit=1001", "limit=x", "before=-1", "apns-id=x"] {
            let (status, body) = try get(query, key: admin)
            XCTAssertEqual(status, 400, query)
            XCTAssertEqual(body["error"] as? String, "invalidRequest", query)
        }
        let post = try provider.relay.curl([
            "--http2", "-w", "\n%{http_code}", "-X", "POST", "-H", "authorization: bearer \(admin)",
            "\(provider.relay.base)/v1/pushes",
        ])
        XCTAssertTrue(post.stdout.hasSuffix("\n405"), post.stdout)
    }
}
