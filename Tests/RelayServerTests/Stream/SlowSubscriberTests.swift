import Foundation
import RelayCore
import RelayHTTP
import RelayServer
import Synchronization
import XCTest

/// A subscriber that stops reading is cut off past its buffer and resumes; nobody else waits for it.
final class SlowSubscriberTests: XCTestCase {
    private var relay: LiveRelay!

    override func setUpWithError() throws {
        relay = try LiveRelay { options in options.httpLimits.streamBufferBytes = 256 * 1024 }
    }

    override func tearDown() {
        relay?.stop()
        relay = nil
    }

    func testStalledReaderIsCutOffWhileOthersGetEverythingAndPublishersNeverWait() throws {
        let device = try relay.createDevice()
        let activity = try relay.startActivity(deviceId: device.id)
        // The updates only: each commit's `timeline.reload` would only add one event per batch.
        let slow = try relay.openStream("/v1/stream?types=activity.updated", receiveBufferBytes: 4096)
        let fast = try relay.openStream("/v1/stream?types=activity.updated")
        relay.waitForSubscribers(2)

        let total = 4000
        let reader = StreamReader(fast, count: total)
        let started = Date()
        var slowestCommit = 0.0
        for batch in 0..<(total / 100) {
            let before = Date()
            try relay.updateActivity(activity, count: 100, from: batch * 100 + 1, padding: 3000)
            slowestCommit = max(slowestCommit, Date().timeIntervalSince(before))
            // The publisher keeps pace with the reading subscriber (a test thread, slower than the
            // relay), never with the stalled one: at most two commits are on their way to it.
            reader.waitUntilReceived((batch - 1) * 100, timeout: 10)
        }
        let publishing = Date().timeIntervalSince(started)
        let fastEvents = try reader.wait(timeout: 60)
        XCTAssertEqual(fastEvents.count, total, "the reading subscriber got every event")
        XCTAssertTrue(steps(fastEvents) == (1...total).map(Int64.init), "in order")
        XCTAssertLessThan(slowestCommit, 5, "no commit waited for the stalled reader (publishing took \(publishing) s)")
        relay.waitForSubscribers(1)  // the stalled one was dropped

        // The stalled reader wakes up: what the kernel held, then the end of the stream.
        var got: [SSEEvent] = []
        var ended = false
        while !ended {
            switch try slow.next(timeout: 10) {
            case .events(let events): got.append(contentsOf: events)
            case .ended: ended = true
            case .timedOut:
                XCTFail("the cut-off stream never ended")
                ended = true
            }
        }
        XCTAssertLessThan(got.count, total, "it was cut off before the end")
        XCTAssertTrue(steps(got) == (0..<got.count).map { Int64($0 + 1) }, "what it got is a clean prefix")
        slow.close()

        // It resumes from its last id and gets exactly the rest.
        let firstSeq = try XCTUnwrap(fastEvents.first).seq
        let resumed = try relay.openStream(
            "/v1/stream?types=activity.updated", lastEventID: got.last?.id ?? String(firstSeq - 1))
        let rest = try resumed.collect(total - got.count, timeout: 60)
        XCTAssertTrue(
            steps(got + rest) == (1...total).map(Int64.init),
            "the resumed stream completes it exactly: got \(got.count), then \(rest.count) from \(steps(Array(rest.prefix(3))))"
                + " to \(steps(Array(rest.suffix(3))))")
        XCTAssertEqual(try resumed.drain(for: 0.3).count, 0)
        resumed.close()
        fast.close()
    }

    private func steps(_ events: [SSEEvent]) -> [Int64] {
        events.map { $0.json["activity"]?["contentState"]?["step"]?.int64Value ?? -1 }
    }
}

/// Reads `count` events on a thread of its own, so the stream keeps draining while the test publishes.
final class StreamReader: @unchecked Sendable {  // Sendable: results are handed over through `done`.
    private var events: [SSEEvent] = []
    private var failure: (any Error)?
    private let done = DispatchSemaphore(value: 0)
    private let received = Mutex(0)

    init(_ stream: EventStreamConnection, count: Int, timeout: Double = 60) {
        nonisolated(unsafe) let stream = stream
        Thread.detachNewThread { [self] in
            let deadline = Date().addingTimeInterval(timeout)
            do {
                reading: while events.count < count {
                    let left = deadline.timeIntervalSinceNow
                    guard left > 0 else { break }
                    switch try stream.next(timeout: left) {
                    case .events(let more):
                        events.append(contentsOf: more)
                        received.withLock { $0 = events.count }
                    case .timedOut, .ended: break reading
                    }
                }
            } catch {
                failure = error
            }
            done.signal()
        }
    }

    /// Waits until at least `count` events have arrived (or `timeout` passed, or the stream ended).
    func waitUntilReceived(_ count: Int, timeout: Double) {
        let deadline = Date().addingTimeInterval(timeout)
        while received.withLock({ $0 }) < count, Date() < deadline {
            if done.wait(timeout: .now() + 0.002) == .success {
                done.signal()
                return
            }
        }
    }

    func wait(timeout: Double) throws -> [SSEEvent] {
        guard done.wait(timeout: .now() + timeout) == .success else { throw StreamTestError("reader timed out") }
        if let failure { throw failure }
        return events
    }
}
