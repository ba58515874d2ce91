/// A min-heap of (time, subject) deadlines with lazy invalidation: scheduling a subject again
/// supersedes its earlier entry, which is skipped when it surfaces.
///
/// The emulator uses it to find the next timed transition among thousands of activities and
/// alarms without scanning them all.
public struct DeadlineQueue<Subject: Hashable & Sendable>: Sendable {
    private struct Entry: Sendable {
        var time: UnixSeconds
        var order: UInt64
        var subject: Subject
    }

    private var heap: [Entry] = []
    private var current: [Subject: UInt64] = [:]
    private var counter: UInt64 = 0

    public init() {}

    /// Sets (or clears, with nil) the deadline of `subject`.
    public mutating func schedule(_ subject: Subject, at time: UnixSeconds?) {
        guard let time else {
            current[subject] = nil
            return
        }
        counter += 1
        current[subject] = counter
        heap.append(Entry(time: time, order: counter, subject: subject))
        siftUp(heap.count - 1)
    }

    /// The earliest live deadline, if any.
    public mutating func peek() -> (time: UnixSeconds, subject: Subject)? {
        while let top = heap.first {
            if current[top.subject] == top.order { return (top.time, top.subject) }
            removeTop()
        }
        return nil
    }

    /// Removes and returns the earliest live deadline at or before `limit`.
    public mutating func popDue(atOrBefore limit: UnixSeconds) -> (time: UnixSeconds, subject: Subject)? {
        guard let top = peek(), top.time <= limit else { return nil }
        removeTop()
        current[top.subject] = nil
        return top
    }

    /// The number of live deadlines.
    public var count: Int { current.count }

    private mutating func removeTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private func less(_ a: Entry, _ b: Entry) -> Bool {
        a.time < b.time || (a.time == b.time && a.order < b.order)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard less(heap[child], heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, less(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count, less(heap[right], heap[smallest]) { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
