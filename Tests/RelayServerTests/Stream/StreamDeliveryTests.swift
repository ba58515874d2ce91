import Foundation
import RelayCore
import RelayHTTP
import RelayJSON
import RelayServer
import RelayTestKit
import XCTest

/// One subscriber over TLS: order and completeness, exact resume, snapshots, heartbeats.
final class StreamDeliveryTests: XCTestCase {
    private var relay: LiveRelay!

    override func setUpWithError() throws {
        relay = try LiveRelay { options in
            options.routeSettings.stream.heartbeatInterval = 0.2
            options.retention = RelayService.Retention(events: 50, pushes: 50)
        }
    }

    override func tearDown() {
        relay?.stop()
        relay = nil
    }

    func testEveryEventArrivesOnceInOrderWithContractShape() throws {
        let device = try relay.createDevice()
        let stream = try relay.openStream()
        relay.waitForSubscribers(1)
        let activity = try relay.startActivity(deviceId: device.id)
        for batch in 0..<10 { try relay.updateActivity(activity, count: 20, from: batch * 20 + 1) }
        let all = try stream.collect(212)
        XCTAssertEqual(all.count, 212)
        let seqs = all.map(\.seq)
        XCTAssertEqual(seqs, Array(seqs[0]..<(seqs[0] + 212)), "ids are consecutive and increasing")
        // Each commit (the start, then each batch of 20) ends with its device's `timeline.reload`.
        let reloads = all.indices.filter { all[$0].event == "timeline.reload" }
        XCTAssertEqual(reloads, [1] + (1...10).map { 1 + $0 * 21 })
        let events = all.filter { $0.event != "timeline.reload" }
        XCTAssertEqual(events.first?.event, "activity.started")
        XCTAssertEqual(events.dropFirst().map(\.event), Array(repeating: "activity.updated", count: 200))
        let steps = events.dropFirst().map { $0.json["activity"]?["contentState"]?["step"]?.int64Value ?? -1 }
        XCTAssertEqual(steps, (1...200).map(Int64.init))
        let last = events[200].json
        XCTAssertEqual(last["seq"]?.int64Value, Int64(seqs[210]))
        XCTAssertEqual(last["type"]?.stringValue, "activity.updated")
        XCTAssertNotNil(last["at"]?.doubleValue)
        XCTAssertEqual(last["activity"]?["id"]?.stringValue, activity)
        XCTAssertEqual(last["activity"]?["state"]?.stringValue, "active")
        XCTAssertEqual(stream.reconnectionTime, StreamRoutes.retryMilliseconds)
        XCTAssertEqual(try stream.drain(for: 0.3).count, 0, "nothing more")
        stream.close()
    }

    func testResumeWithLastEventIDReplaysExactlyWhatWasMissed() throws {
        let device = try relay.createDevice()
        let activity = try relay.startActivity(deviceId: device.id)
        let first = try relay.openStream("/v1/stream?types=activity.updated")
        relay.waitForSubscribers(1)
        try relay.updateActivity(activity, count: 5)
        let seen = try first.collect(5)
        XCTAssertEqual(seen.count, 5)
        first.close()
        relay.waitForSubscribers(0)
        try relay.updateActivity(activity, count: 30, from: 6)  // missed while away
        for lastEventID in [first.lastEventID] {
            let resumed = try relay.openStream("/v1/stream?types=activity.updated", lastEventID: lastEventID)
            relay.waitForSubscribers(1)
            try relay.updateActivity(activity, count: 3, from: 36)  // live, after the replay
            let events = try resumed.collect(33)
            let steps = events.map { $0.json["activity"]?["contentState"]?["step"]?.int64Value ?? -1 }
            XCTAssertEqual(steps, (6...38).map(Int64.init), "every missed event once, then live ones, in order")
            XCTAssertEqual(events.first?.seq, UInt64(lastEventID)! + 2, "after the batch's timeline.reload")
            XCTAssertEqual(try resumed.drain(for: 0.3).count, 0)
            resumed.close()
        }
        // The query parameter does the same (EventSource with a fresh ticket uses it).
        let byQuery = try relay.openStream("/v1/stream?lastEventId=\(seen[2].seq)&types=activity.updated")
        let replayed = try byQuery.collect(35)
        XCTAssertEqual(replayed.map(\.seq).first, seen[3].seq)
        XCTAssertEqual(replayed.count, 35)
        byQuery.close()
    }

    func testTooFarBehindGetsASnapshotThenLiveEvents() throws {
        let device = try relay.createDevice()
        let other = try relay.createDevice()
        let activity = try relay.startActivity(deviceId: device.id)
        _ = try relay.startActivity(deviceId: other.id)
        // Pruning runs when a batch crosses a multiple of 1000: reach seq 999 (998 updates and the
        // batch's timeline.reload), then one more update (1000) and its reload (1001).
        let next = try relay.perform { emulator, _ in emulator.nextSeq }
        try relay.updateActivity(activity, count: Int(999 - next))
        try relay.updateActivity(activity, count: 1, from: 5000)
        let oldest = try XCTUnwrap(try relay.runtime.service.store.reader.oldestEventSeq())
        XCTAssertGreaterThan(oldest, 900, "the log was pruned to its retention")
        let stream = try relay.openStream("/v1/stream?deviceId=\(device.id)", lastEventID: "3")
        let snapshot = try XCTUnwrap(stream.collect(1).first)
        XCTAssertEqual(snapshot.event, "snapshot")
        XCTAssertEqual(snapshot.seq, 1001)
        let data = snapshot.json
        XCTAssertEqual(data["type"]?.stringValue, "snapshot")
        XCTAssertEqual(data["activities"]?.arrayValue?.count, 1, "only the filtered device's activity")
        XCTAssertEqual(data["activities"]?.arrayValue?.first?["id"]?.stringValue, activity)
        XCTAssertEqual(data["activities"]?.arrayValue?.first?["contentState"]?["step"]?.int64Value, 5000)
        XCTAssertEqual(data["alarms"]?.arrayValue?.count, 0)
        XCTAssertEqual(data["clock"]?["mode"]?.stringValue, "system")
        try relay.updateActivity(activity, count: 1, from: 5001)
        let live = try stream.collect(1)
        XCTAssertEqual(live.first?.seq, 1002)
        stream.close()
        // A fresh renderer asks for the current state first.
        let fresh = try relay.openStream("/v1/stream?snapshot=true&types=activity.updated")
        let first = try XCTUnwrap(fresh.collect(1).first)
        XCTAssertEqual(first.event, "snapshot")
        XCTAssertEqual(first.json["activities"]?.arrayValue?.count, 2)
        XCTAssertEqual(first.seq, 1003)
        try relay.updateActivity(activity, count: 1, from: 5002)
        XCTAssertEqual(try fresh.collect(1).map(\.seq), [1004])
        fresh.close()
        // An id from the future (another data directory) also gets a snapshot rather than silence.
        let ahead = try relay.openStream(lastEventID: "999999")
        XCTAssertEqual(try ahead.collect(1).first?.event, "snapshot")
        ahead.close()
    }

    func testQuietStreamGetsHeartbeatsAndHeaders() throws {
        let connection = try HTTPSConnection.connect(
            host: "localhost", port: relay.port, context: try relay.clientContext())
        try connection.send("GET", "/v1/stream", headers: [("authorization", "bearer \(LiveRelay.adminKey)")])
        let (status, headers) = try connection.readHead(timeout: 5)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(headers["content-type"], "text/event-stream")
        XCTAssertEqual(headers["cache-control"], "no-cache")
        connection.close()
        let stream = try relay.openStream()
        XCTAssertEqual(try stream.drain(for: 0.7).count, 0)
        XCTAssertGreaterThanOrEqual(stream.commentCount, 3, "the preamble comment and at least two pings")
        stream.close()
    }

    func testShutdownEndsOpenStreamsAtOnce() throws {
        let stream = try relay.openStream()
        relay.waitForSubscribers(1)
        let started = Date()
        relay.stop()
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.5, "no wait for the 2 s grace period")
        var next = try stream.next(timeout: 5)
        while next == .events([]) { next = try stream.next(timeout: 5) }  // the preamble
        XCTAssertEqual(next, .ended, "the body ends cleanly; the client resumes later")
        stream.close()
    }

    func testRefusalsAreJSONErrors() throws {
        let cases: [(target: String, key: String?, status: Int, code: String)] = [
            ("/v1/stream?types=activity.updated,activity.exploded", LiveRelay.adminKey, 400, "invalidRequest"),
            ("/v1/stream?types=snapshot", LiveRelay.adminKey, 400, "invalidRequest"),
            ("/v1/stream?lastEventId=12ab", LiveRelay.adminKey, 400, "invalidRequest"),
            ("/v1/stream", nil, 401, "unauthorized"),
            ("/v1/stream", "not-a-key-of-this-relay", 401, "unauthorized"),
        ]
        for item in cases {
            let response = try relay.request("GET", item.target, key: item.key)
            XCTAssertEqual(response.status, item.status, item.target)
            XCTAssertEqual(response.headers["content-type"], "application/json", item.target)
            XCTAssertEqual(try JSONValue(parsing: response.text)["error"]?.stringValue, item.code, item.target)
        }
        XCTAssertEqual(try relay.request("POST", "/v1/stream").status, 405)
        XCTAssertEqual(try relay.request("GET", "/v1/stream-tickets").status, 405)
    }

    func testStreamsOverHTTP2WithCurl() throws {
        let device = try relay.createDevice()
        let curl = try ChildProcess([
            "curl", "-sS", "-N", "-i", "--http2", "--cacert", relay.caPath, "--max-time", "2", "-H",
            "authorization: bearer \(LiveRelay.adminKey)", "\(relay.base)/v1/stream?types=activity.started",
        ])
        relay.waitForSubscribers(1)
        _ = try relay.startActivity(deviceId: device.id)
        let output = try curl.wait(timeout: 10).stdout
        XCTAssertTrue(output.contains("HTTP/2 200"), output)
        XCTAssertTrue(output.contains("content-type: text/event-stream"), output)
        XCTAssertTrue(output.contains("event: activity.started"), output)
    }
}
