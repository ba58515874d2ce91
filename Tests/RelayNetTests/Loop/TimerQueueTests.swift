import XCTest

@testable import RelayNet

final class TimerQueueTests: XCTestCase {
    func testPopsDueTimersByDeadlineThenSchedulingOrder() {
        var queue = TimerQueue<String>()
        for (deadline, name) in [(30, "c"), (10, "a"), (20, "b1"), (20, "b2"), (40, "d")] {
            queue.schedule(deadline: Int64(deadline), name)
        }
        var fired: [String] = []
        while let (_, name) = queue.popDue(now: 30) { fired.append(name) }
        XCTAssertEqual(fired, ["a", "b1", "b2", "c"])
        XCTAssertEqual(queue.nextDeadline(), 40)
        XCTAssertEqual(queue.count, 1)
    }

    func testCancelledTimersNeverFireAndDoNotHoldTheDeadline() {
        var queue = TimerQueue<Int>()
        let first = queue.schedule(deadline: 5, 1)
        queue.schedule(deadline: 9, 2)
        XCTAssertTrue(queue.cancel(first))
        XCTAssertFalse(queue.cancel(first))
        XCTAssertEqual(queue.nextDeadline(), 9)
        XCTAssertNil(queue.popDue(now: 8))
        XCTAssertEqual(queue.popDue(now: 9)?.1, 2)
        XCTAssertNil(queue.nextDeadline())
    }

    func testSequenceLimitHoldsBackTimersAddedDuringAPass() {
        var queue = TimerQueue<String>()
        queue.schedule(deadline: 0, "old")
        let limit = queue.nextSequence
        queue.schedule(deadline: 0, "new")
        XCTAssertEqual(queue.popDue(now: 0, sequenceLimit: limit)?.1, "old")
        XCTAssertNil(queue.popDue(now: 0, sequenceLimit: limit))
        XCTAssertEqual(queue.popDue(now: 0)?.1, "new")
    }

    func testMassCancellationKeepsOrderAfterCompaction() {
        var queue = TimerQueue<Int>()
        let ids = (0..<1000).map { queue.schedule(deadline: Int64(1000 - $0), $0) }
        for (index, id) in ids.enumerated() where index % 10 != 0 { queue.cancel(id) }
        XCTAssertEqual(queue.count, 100)
        var fired: [Int] = []
        while let (_, value) = queue.popDue(now: .max) { fired.append(value) }
        XCTAssertEqual(fired, stride(from: 990, through: 0, by: -10).map { $0 })
    }
}
