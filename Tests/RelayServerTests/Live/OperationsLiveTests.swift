import Foundation
import RelayCore
import RelayServer
import RelayTestKit
import XCTest

/// `/metrics` after a mixed workload on a live relay, read with `prometheus_client`'s parser, and
/// the log lines that workload wrote: counters match the workload exactly, every JSON line parses
/// and carries its ids, no line holds a secret or a raw control character.
final class OperationsLiveTests: XCTestCase {
    private var provider: ProviderRelay!
    private var logPath = ""
    private var savedOutput: Int32 = 2

    override func setUpWithError() throws {
        provider = try ProviderRelay { options in
            options.rules.pushToStartBudget = BucketRule(capacity: 1, refillInterval: 3600)
        }
        logPath = provider.data.file("relay-log-\(UUID().uuidString).txt")
        let fd = open(logPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        savedOutput = RelayLog.setOutput(fd)
    }

    override func tearDown() {
        close(RelayLog.setOutput(savedOutput))
        RelayLog.setFormat(.text)
        provider?.stop()
        provider = nil
    }

    // MARK: - Helpers

    /// One parsed sample: name, labels, value.
    private struct Sample {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    /// `GET /metrics` with the admin key, parsed by `metrics_parse.py` (prometheus_client).
    private func scrape() throws -> (families: [String: String], samples: [Sample]) {
        let outcome = try provider.relay.curl([
            "--http2", "-H", "authorization: Bearer \(provider.data.adminKey.secret)", "\(provider.relay.base)/metrics",
        ])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let page = provider.data.file("metrics-\(UUID().uuidString).txt")
        try Data(outcome.stdout.utf8).write(to: URL(fileURLWithPath: page))
        let parsed = try ChildProcess.run(["python3", Fixtures.path("metrics_parse.py"), page], timeout: 60)
        XCTAssertEqual(parsed.status, 0, "prometheus_client refuses the page: \(parsed.stderr)\n\(outcome.stdout)")
        let object = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(parsed.stdout.utf8)) as? [String: Any], parsed.stdout)
        let families = try XCTUnwrap(object["families"] as? [String: String])
        let samples = try XCTUnwrap(object["samples"] as? [[Any]]).map { row in
            Sample(
                name: row[0] as? String ?? "", labels: row[1] as? [String: String] ?? [:],
                value: (row[2] as? NSNumber)?.doubleValue ?? .nan)
        }
        return (families, samples)
    }

    /// The value of `name` with exactly `labels` (0 when the series is absent).
    private func value(_ samples: [Sample], _ name: String, _ labels: [String: String] = [:]) -> Double {
        samples.first { $0.name == name && $0.labels == labels }?.value ?? 0
    }

    /// Scrapes until `done` holds for the page (a closed connection is counted when the relay
    /// notices it), at most 20 s.
    private func scrape(until done: ([Sample]) -> Bool) throws -> [Sample] {
        let deadline = Date().addingTimeInterval(20)
        var samples = try scrape().samples
        while !done(samples), Date() < deadline {
            usleep(100_000)
            samples = try scrape().samples
        }
        return samples
    }

    private func push(_ token: String, jwt: String, priority: String = "10", body: String) -> H2Request {
        H2Request(
            path: "/3/device/\(token)",
            headers: [
                ("apns-topic", ProviderRelay.topic), ("apns-push-type", "liveactivity"), ("apns-priority", priority),
                ("authorization", "bearer \(jwt)"),
            ], body: body)
    }

    private func update(_ status: String, at timestamp: Int64) -> String {
        #"{"aps":{"event":"update","timestamp":\#(timestamp),"content-state":{"status":"\#(status)"}}}"#
    }

    private let start =
        #"{"aps":{"event":"start","timestamp":1,"attributes-type":"DeliveryAttributes","attributes":{"order":"1"},"content-state":{"status":"new"},"alert":{"title":"t","body":"b"}}}"#

    // MARK: - Tests

    func testMetricsAfterAMixedWorkloadMatchItExactly() throws {
        RelayLog.setFormat(.json)
        let before = try scrape()
        let device = try provider.makeDevice()
        let active = try provider.startActivity(deviceId: device.id)
        let ended = try provider.startActivity(deviceId: device.id)
        _ = try provider.endActivity(ended.id)
        let startToken = try provider.pushToStartToken(deviceId: device.id)
        let token = try XCTUnwrap(active.token)
        let jwt = try provider.devToken()
        let now = ProviderRelay.now(minus: 0)
        let requests: [H2Request] = [
            push(token, jwt: jwt, body: update("applied", at: now + 10)),  // applied
            push(token, jwt: jwt, priority: "5", body: update("held", at: now + 11)),  // deferred
            push(token, jwt: jwt, priority: "5", body: update("held again", at: now + 12)),  // deferred, coalesced
            push(token, jwt: jwt, body: update("stale", at: now - 100)),  // ignored
            push(startToken, jwt: jwt, body: start),  // started
            push(startToken, jwt: jwt, body: start),  // dropped: the start budget of 1 is spent
            push(String(repeating: "ab", count: 32), jwt: jwt, body: update("x", at: now)),  // 400 BadDeviceToken
            push(try XCTUnwrap(ended.token), jwt: jwt, body: update("x", at: now)),  // 410 Unregistered
            push(token, jwt: "not.a.jwt", body: update("x", at: now)),  // 403 InvalidProviderToken
        ]
        let answers = try XCTUnwrap(provider.h2([["requests": requests.map(\.json)]]).first).answers
        XCTAssertEqual(answers.map(\.status), [200, 200, 200, 200, 200, 200, 400, 410, 403])

        // A subscriber that comes and goes, and a client speaking plain HTTP to the TLS port.
        let stream = try provider.relay.curl(
            [
                "--http2", "-N", "-H", "authorization: Bearer \(provider.data.adminKey.secret)", "--max-time", "1",
                "\(provider.relay.base)/v1/stream",
            ], timeout: 30)
        XCTAssertEqual(stream.status, 28, "the stream stays open until curl's --max-time: \(stream.stderr)")
        let plain = try ChildProcess.run(
            ["curl", "-sS", "--max-time", "5", "http://127.0.0.1:\(provider.port)/healthz"], timeout: 30)
        XCTAssertNotEqual(plain.status, 0)

        let after = try scrape { samples in
            value(samples, "relay_stream_disconnects_total", ["reason": "peerClosed"])
                > value(before.samples, "relay_stream_disconnects_total", ["reason": "peerClosed"])
                && value(samples, "relay_tls_handshake_failures_total", ["reason": "plain_http"])
                    > value(before.samples, "relay_tls_handshake_failures_total", ["reason": "plain_http"])
        }
        func delta(_ name: String, _ labels: [String: String] = [:]) -> Double {
            value(after, name, labels) - value(before.samples, name, labels)
        }
        // Requests by surface, method and status.
        XCTAssertEqual(
            delta("relay_http_requests_total", ["surface": "provider", "method": "POST", "status": "200"]), 6)
        XCTAssertEqual(
            delta("relay_http_requests_total", ["surface": "provider", "method": "POST", "status": "400"]), 1)
        XCTAssertEqual(
            delta("relay_http_requests_total", ["surface": "provider", "method": "POST", "status": "410"]), 1)
        XCTAssertEqual(
            delta("relay_http_requests_total", ["surface": "provider", "method": "POST", "status": "403"]), 1)
        XCTAssertEqual(delta("relay_http_requests_total", ["surface": "app", "method": "POST", "status": "201"]), 4)
        XCTAssertEqual(delta("relay_http_requests_total", ["surface": "app", "method": "POST", "status": "200"]), 1)
        XCTAssertEqual(delta("relay_http_requests_total", ["surface": "stream", "method": "GET", "status": "200"]), 1)
        let scrapes = after.filter { $0.name == "relay_http_requests_total" && $0.labels["surface"] == "metrics" }
        XCTAssertGreaterThanOrEqual(scrapes.map(\.value).reduce(0, +), 1)
        // Pushes by reason and by outcome.
        XCTAssertEqual(delta("relay_provider_pushes_total", ["reason": "none"]), 6)
        XCTAssertEqual(delta("relay_provider_pushes_total", ["reason": "BadDeviceToken"]), 1)
        XCTAssertEqual(delta("relay_provider_pushes_total", ["reason": "Unregistered"]), 1)
        XCTAssertEqual(delta("relay_provider_pushes_total", ["reason": "InvalidProviderToken"]), 1)
        for (outcome, count) in [
            ("applied", 1.0), ("deferred", 2), ("ignored", 1), ("started", 1), ("dropped", 1), ("rejected", 3),
        ] {
            XCTAssertEqual(delta("relay_push_outcomes_total", ["outcome": outcome]), count, outcome)
        }
        // Held updates and the start budget are this relay's own (its emulator's), not deltas.
        XCTAssertEqual(value(after, "relay_activity_updates_total", ["result": "deferred"]), 1)
        XCTAssertEqual(value(after, "relay_activity_updates_total", ["result": "coalesced"]), 1)
        XCTAssertEqual(value(after, "relay_activity_updates_total", ["result": "refused"]), 0)
        XCTAssertEqual(value(after, "relay_push_to_start_budget_exhausted_total"), 1)
        XCTAssertEqual(
            value(after, "relay_activities", ["state": "active"]), 2, "the token activity and the started one")
        XCTAssertEqual(value(after, "relay_activities", ["state": "ended"]), 1)
        // The subscriber, the handshakes.
        XCTAssertEqual(value(after, "relay_stream_subscribers"), 0)
        XCTAssertEqual(delta("relay_stream_disconnects_total", ["reason": "peerClosed"]), 1)
        XCTAssertEqual(delta("relay_tls_handshake_failures_total", ["reason": "plain_http"]), 1)
        XCTAssertGreaterThanOrEqual(delta("relay_tls_handshakes_total"), 8)
        // The store's histograms and the rest.
        XCTAssertGreaterThan(delta("relay_store_commit_seconds_count"), 0)
        XCTAssertEqual(
            delta("relay_store_commit_seconds_count"), delta("relay_store_batch_events_count"),
            "one latency and one size per commit")
        XCTAssertEqual(
            value(after, "relay_store_commit_seconds_bucket", ["le": "+Inf"]),
            value(after, "relay_store_commit_seconds_count"))
        XCTAssertEqual(value(after, "relay_build_info", ["version": RelayMetrics.version, "clock": "system"]), 1)
        XCTAssertEqual(value(after, "relay_clock_seconds"), Date().timeIntervalSince1970, accuracy: 60)
        XCTAssertEqual(before.families["relay_store_commit_seconds"], "histogram")
        XCTAssertEqual(before.families["relay_http_requests"], "counter")
        // Bounded labels: no token, id or key in any label.
        let secrets = [token, startToken, try XCTUnwrap(ended.token), device.key, jwt]
        for sample in after {
            for value in sample.labels.values { XCTAssertFalse(secrets.contains(value), "\(sample.name) \(value)") }
        }

        try checkJSONLog(secrets: secrets + [provider.data.adminKey.secret, "not.a.jwt"], activityID: active.id)
    }

    /// Every line parses as JSON with time, level and event; push lines carry the ids; no line
    /// holds a secret, a whole token or an unescaped control character.
    private func checkJSONLog(secrets: [String], activityID: String) throws {
        let text = try String(contentsOfFile: logPath, encoding: .utf8)
        let lines = text.split(separator: "\n")
        XCTAssertFalse(lines.isEmpty)
        var events: [String: Int] = [:]
        var seqs: [Int] = []
        for line in lines {
            let object = try XCTUnwrap(
                JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
            let event = try XCTUnwrap(object["event"] as? String)
            XCTAssertNotNil(object["time"] as? String)
            XCTAssertNotNil(object["level"] as? String)
            events[event, default: 0] += 1
            if event == "push" {
                for key in ["apnsId", "uniqueId", "status", "outcome", "token", "activity", "seq"] {
                    XCTAssertNotNil(object[key], "push line without \(key): \(line)")
                }
                XCTAssertLessThanOrEqual((object["token"] as? String)?.count ?? 99, 8)
                seqs.append((object["seq"] as? NSNumber)?.intValue ?? 0)
            }
            for secret in secrets { XCTAssertFalse(line.contains(secret), "a secret in the log: \(line)") }
            XCTAssertFalse(line.utf8.contains { $0 < 0x20 || $0 == 0x7F }, "a raw control byte: \(line)")
        }
        XCTAssertEqual(events["push"], 9)
        XCTAssertEqual(seqs, seqs.sorted(), "each push names its push.received event, in order")
        XCTAssertEqual(Set(seqs).count, 9)
        XCTAssertFalse(seqs.contains(0))
        XCTAssertTrue(text.contains(activityID), "push lines name the activity")
        for event in ["app.device.create", "app.activity.start", "app.activity.end", "app.pushToStart.token"] {
            XCTAssertNotNil(events[event], "no \(event) line in \(events)")
        }
    }

    /// Control characters sent percent-encoded in an id (ESC, NUL, TAB), and a C1 control and a
    /// bidirectional override sent raw in a `:path` and in a device token, reach the log only
    /// escaped, in text and in JSON lines. (Raw control characters and spaces in `:path` are
    /// refused before routing, RFC 9113 §8.3.1.)
    func testControlCharactersFromClientsAreEscapedInTheLog() throws {
        let jwt = try provider.devToken()
        let hostile = "ab\u{9B}d\u{202E}e"
        let admin = [("authorization", "Bearer \(provider.data.adminKey.secret)")]
        let requests = [
            push(hostile, jwt: jwt, body: update("x", at: 1)),
            H2Request(method: "GET", path: "/v1/activities/\(hostile)"),
            H2Request(method: "GET", path: "/v1/activities/%1B%5B2J%00%09id", headers: admin),
        ]
        for format in [RelayLog.Format.text, .json] {
            RelayLog.setFormat(format)
            let answers = try XCTUnwrap(provider.h2([["requests": requests.map(\.json)]]).first).answers
            XCTAssertEqual(answers.map(\.status), [400, 401, 404])
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: logPath))
        XCTAssertFalse(data.contains { ($0 < 0x20 && $0 != 0x0A) || $0 == 0x7F }, "a raw control byte reached the log")
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertFalse(text.contains("\u{9B}"), "a raw C1 control reached the log")
        XCTAssertFalse(text.contains("\u{202E}"), "a raw bidirectional override reached the log")
        let lines = text.split(separator: "\n")
        let textLines = lines.filter { !$0.hasPrefix("{") }
        let jsonLines = lines.filter { $0.hasPrefix("{") }
        // The token's first 8 characters, the unrouted path, the decoded id.
        for expected in [
            #"token="ab\x9bd\u{202e}""#, #"path="/v1/activities/ab\x9bd\u{202e}e""#,
            #"\x1b[2J\x00\tid"#,
        ] {
            XCTAssertTrue(textLines.contains { $0.contains(expected) }, "no text line holds \(expected):\n\(text)")
        }
        for expected in [
            #""token":"ab\u009bd\u202e""#, #""path":"/v1/activities/ab\u009bd\u202ee""#,
            #"\u001b[2J\u0000\tid"#,
        ] {
            XCTAssertTrue(jsonLines.contains { $0.contains(expected) }, "no JSON line holds \(expected):\n\(text)")
        }
        for line in jsonLines {
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(line.utf8)), String(line))
        }
    }
}
