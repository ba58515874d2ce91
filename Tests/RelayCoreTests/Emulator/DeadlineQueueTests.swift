import RelayCore
import XCTest

final class DeadlineQueueTests: XCTestCase {
    func testEarliestFirstAndRescheduleMovesTheEntry() {
        var queue = DeadlineQueue<String>()
        queue.schedule("a", at: 30)
        queue.schedule("b", at: 10)
        queue.schedule("c", at: 20)
        queue.schedule("b", at: 40)
        XCTAssertEqual(queue.count, 3)
        XCTAssertEqual(queue.peek()?.subject, "c")
        queue.schedule("a", at: 5)
        XCTAssertEqual(drain(&queue, upTo: 100).map(\.subject), ["a", "c", "b"])
        XCTAssertEqual(queue.count, 0)
    }

    func testEqualTimesGoInScheduleOrderAndRescheduleMovesBehind() {
        var queue = DeadlineQueue<String>()
        for subject in ["a", "b", "c"] { queue.schedule(subject, at: 10) }
        queue.schedule("a", at: 10)
        XCTAssertEqual(drain(&queue, upTo: 10).map(\.subject), ["b", "c", "a"])
    }

    func testClearingRemovesAndPopStopsAtTheLimit() {
        var queue = DeadlineQueue<String>()
        queue.schedule("a", at: 10)
        queue.schedule("b", at: 20)
        queue.schedule("c", at: 30)
        queue.schedule("a", at: nil)
        queue.schedule("missing", at: nil)
        XCTAssertEqual(queue.count, 2)
        XCTAssertEqual(queue.popDue(atOrBefore: 25)?.subject, "b")
        XCTAssertNil(queue.popDue(atOrBefore: 25))
        XCTAssertEqual(queue.peek()?.time, 30)
    }

    /// Random schedules, clears and pops agree with a plain list ordered by (time, last scheduled).
    func testAgreesWithAReferenceModel() {
        var queue = DeadlineQueue<Int>()
        checkAgainstAReferenceModel(&queue)
    }

    /// The same with most subjects found by a dense index and the rest by hashing, side by side.
    func testAgreesWithAReferenceModelWithDenseIndices() {
        var queue = DeadlineQueue<Int>(denseIndex: { $0 < 30 ? $0 : nil })
        checkAgainstAReferenceModel(&queue)
    }

    private func checkAgainstAReferenceModel(_ queue: inout DeadlineQueue<Int>) {
        var model: [Int: (time: Double, order: Int)] = [:]
        var order = 0
        var seed: UInt64 = 0x1234_5678
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        for _ in 0..<5000 {
            let subject = next(40)
            switch next(10) {
            case 0...5:
                let time = Double(next(50))
                order += 1
                queue.schedule(subject, at: time)
                model[subject] = (time, order)
            case 6:
                queue.schedule(subject, at: nil)
                model[subject] = nil
            default:
                let limit = Double(next(60))
                let expected = model.filter { $0.value.time <= limit }.min {
                    ($0.value.time, $0.value.order) < ($1.value.time, $1.value.order)
                }
                let popped = queue.popDue(atOrBefore: limit)
                XCTAssertEqual(popped?.subject, expected?.key)
                XCTAssertEqual(popped?.time, expected?.value.time)
                if let key = expected?.key { model[key] = nil }
            }
            XCTAssertEqual(queue.count, model.count)
        }
    }

    private func drain(_ queue: inout DeadlineQueue<String>, upTo limit: Double) -> [(time: Double, subject: String)] {
        var out: [(time: Double, subject: String)] = []
        while let due = queue.popDue(atOrBefore: limit) { out.append(due) }
        return out
    }
}
