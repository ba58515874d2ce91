import Foundation
import RelayNet
import XCTest

final class EventLoopTests: XCTestCase {
    private var group: EventLoopGroup!

    override func setUpWithError() throws { group = try EventLoopGroup(threads: 1) }
    override func tearDown() { group.shutdown() }

    private var loop: EventLoop { group.loops[0] }

    func testExecuteRunsOnTheLoopInSubmissionOrderPerThread() throws {
        let log = HandlerLog()
        let loop = self.loop
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<250 {
                loop.execute { [loop] in log.record("\(thread) \(index) \(loop.inLoop)") }
            }
        }
        XCTAssertTrue(log.waitFor { $0.events.count == 1000 })
        XCTAssertFalse(loop.inLoop)
        for thread in 0..<4 {
            let mine = log.events.filter { $0.hasPrefix("\(thread) ") }
            XCTAssertEqual(mine, (0..<250).map { "\(thread) \($0) true" })
        }
    }

    func testTimersFireInDeadlineOrderAndTiesInSchedulingOrder() throws {
        let log = HandlerLog()
        try loop.submitAndWait { [loop] in
            loop.schedule(after: 0.06) { log.record("c") }
            loop.schedule(after: 0.02) { log.record("a") }
            loop.schedule(after: 0.04) { log.record("b1") }
            loop.schedule(after: 0.04) { log.record("b2") }
            loop.schedule(after: 0) { log.record("now") }
        }
        XCTAssertTrue(log.waitFor { $0.events.count == 5 })
        XCTAssertEqual(log.events, ["now", "a", "b1", "b2", "c"])
    }

    func testTimerDoesNotFireEarly() throws {
        let log = HandlerLog()
        let start = Date()
        try loop.submitAndWait { [loop] in loop.schedule(after: 0.15) { log.record("fired") } }
        XCTAssertTrue(log.waitFor { $0.count("fired") == 1 })
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.15)
    }

    func testCancelOnTheLoopPreventsFiring() throws {
        let log = HandlerLog()
        try loop.submitAndWait { [loop] in
            let doomed = loop.schedule(after: 0.03) { log.record("cancelled one fired") }
            loop.schedule(after: 0.01) { loop.cancel(doomed) }
            loop.schedule(after: 0.08) { log.record("done") }
        }
        XCTAssertTrue(log.waitFor { $0.count("done") == 1 })
        XCTAssertEqual(log.events, ["done"])
    }

    func testCancelFromAnotherThreadPreventsFiring() throws {
        let log = HandlerLog()
        let id = try loop.submitAndWait { [loop] in loop.schedule(after: 0.2) { log.record("fired") } }
        loop.cancel(id)  // from the test thread: hops onto the loop
        try loop.submitAndWait { [loop] in loop.schedule(after: 0.3) { log.record("later") } }
        XCTAssertTrue(log.waitFor { $0.count("later") == 1 })
        XCTAssertEqual(log.events, ["later"])
    }

    func testTimerRearmingItselfDoesNotStarveExecute() throws {
        let log = HandlerLog()
        final class Rearm: @unchecked Sendable {  // Sendable: touched only on the loop
            var count = 0
        }
        let rearm = Rearm()
        try loop.submitAndWait { [loop] in
            func tick() {
                rearm.count += 1
                if rearm.count < 10_000 { loop.schedule(after: 0, tick) }
            }
            loop.schedule(after: 0, tick)
        }
        loop.execute { log.record("ran while timers re-arm") }
        XCTAssertTrue(log.waitFor { $0.count("ran while timers re-arm") == 1 })
        let count = try loop.submitAndWait { rearm.count }
        XCTAssertLessThan(count, 10_000)
    }

    func testSubmitAndWaitReturnsValuesAndErrors() throws {
        XCTAssertEqual(try loop.submitAndWait { 42 }, 42)
        XCTAssertThrowsError(try loop.submitAndWait { throw SystemError(call: "probe", errno: 5) }) { error in
            XCTAssertEqual(error as? SystemError, SystemError(call: "probe", errno: 5))
        }
    }

    func testWorkAfterStopIsDroppedAndLoopThreadEnds() throws {
        let other = try EventLoop(name: "stop-test")
        other.stop()
        other.waitUntilStopped()
        XCTAssertFalse(other.isAcceptingWork)
        other.execute { XCTFail("ran after stop") }
        XCTAssertThrowsError(try other.submitAndWait { 1 })
    }

    func testGroupDealsLoopsRoundRobin() throws {
        let three = try EventLoopGroup(threads: 3)
        defer { three.shutdown() }
        let picks = (0..<6).map { _ in ObjectIdentifier(three.next()) }
        XCTAssertEqual(picks, (three.loops + three.loops).map(ObjectIdentifier.init))
    }
}
