/// Names a scheduled timer so it can be cancelled; unique per event loop.
package struct TimerID: Hashable, Sendable, CustomStringConvertible {
    /// Sequence number: later schedules get larger values, which also breaks deadline ties.
    package let rawValue: UInt64

    /// Wraps a sequence number.
    package init(rawValue: UInt64) { self.rawValue = rawValue }

    package var description: String { "timer#\(rawValue)" }
}

/// A min-heap of deadlines with O(log n) insert and lazy cancellation: pure, no clock, no I/O.
///
/// The event loop asks it for the next deadline (to size `epoll_wait`'s timeout) and pops what is due.
/// Equal deadlines fire in scheduling order. Cancelled entries stay in the heap until they surface or
/// until they outnumber live ones, when the heap is rebuilt, so churn cannot grow it without bound.
struct TimerQueue<Payload> {
    private struct Entry {
        var deadline: Int64
        var id: UInt64

        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : id < other.id
        }
    }

    private var heap: [Entry] = []
    private var payloads: [UInt64: Payload] = [:]
    private var nextID: UInt64 = 1

    /// Number of live (not cancelled, not fired) timers.
    var count: Int { payloads.count }

    /// The identifier the next `schedule` will hand out; entries below it existed before.
    var nextSequence: UInt64 { nextID }

    /// Adds a timer due at `deadline` (any monotonic unit the caller chooses).
    @discardableResult
    mutating func schedule(deadline: Int64, _ payload: Payload) -> TimerID {
        let id = nextID
        nextID += 1
        payloads[id] = payload
        heap.append(Entry(deadline: deadline, id: id))
        siftUp(heap.count - 1)
        return TimerID(rawValue: id)
    }

    /// Cancels a timer; returns false if it already fired, was cancelled, or never existed.
    @discardableResult
    mutating func cancel(_ id: TimerID) -> Bool {
        guard payloads.removeValue(forKey: id.rawValue) != nil else { return false }
        if heap.count > 64 && payloads.count < heap.count / 2 { compact() }
        return true
    }

    /// The earliest live deadline, discarding cancelled entries on top.
    mutating func nextDeadline() -> Int64? {
        dropCancelledTop()
        return heap.first?.deadline
    }

    /// Removes and returns the earliest timer if it is due at `now` and was scheduled before `sequenceLimit`
    /// (timers added while firing wait for the next pass, so a timer that re-arms itself cannot starve I/O).
    mutating func popDue(now: Int64, sequenceLimit: UInt64 = .max) -> (TimerID, Payload)? {
        dropCancelledTop()
        guard let top = heap.first, top.deadline <= now, top.id < sequenceLimit else { return nil }
        removeTop()
        guard let payload = payloads.removeValue(forKey: top.id) else { return nil }
        return (TimerID(rawValue: top.id), payload)
    }

    /// Removes every live timer, returning their payloads in deadline order.
    mutating func removeAll() -> [Payload] {
        var result: [Payload] = []
        while let (_, payload) = popDue(now: .max) { result.append(payload) }
        heap.removeAll()
        return result
    }

    // MARK: - Heap

    private mutating func dropCancelledTop() {
        while let top = heap.first, payloads[top.id] == nil { removeTop() }
    }

    private mutating func removeTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func compact() {
        heap.removeAll { payloads[$0.id] == nil }
        guard heap.count > 1 else { return }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            let right = left + 1
            let smaller = right < heap.count && heap[right].precedes(heap[left]) ? right : left
            guard heap[smaller].precedes(heap[parent]) else { return }
            heap.swapAt(smaller, parent)
            parent = smaller
        }
    }
}
