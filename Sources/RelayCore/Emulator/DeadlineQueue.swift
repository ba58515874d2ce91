/// A min-heap (4-ary) of (time, subject) deadlines, one per subject: scheduling a subject again moves its
/// entry, and among equal times the subject scheduled earlier comes first.
///
/// The emulator uses it to find the next timed transition among thousands of activities and
/// alarms without scanning them all. Every change to an activity reschedules it, so entries are
/// updated in place (each subject has a slot that knows its heap position) rather than added
/// anew: the heap stays as large as the number of subjects, and finding the earliest deadline
/// never skips superseded entries. A subject keeps its slot when its deadline is popped (it is
/// usually rescheduled at once); only clearing it with `schedule(_, at: nil)` frees the slot.
///
/// Subjects that are small numbers already (the emulator's activities are positions in its table)
/// can find their slot in an array instead of a dictionary: see `init(denseIndex:)`.
package struct DeadlineQueue<Subject: Hashable & Sendable>: Sendable {
    private struct Entry: Sendable {
        var time: UnixSeconds
        /// When it was last scheduled; breaks ties between equal times.
        var order: UInt64
        /// Index into `subjects` and `positions`.
        var slot: Int
    }

    private var heap: [Entry] = []
    /// Each subject's slot, for subjects without a dense index.
    private var slots: [Subject: Int] = [:]
    /// Each slot by its subject's dense index, -1 for none.
    private var denseSlots: [Int] = []
    /// A subject's dense index, if it has one.
    private let denseIndex: (@Sendable (Subject) -> Int?)?
    /// Per slot: the subject, nil when the slot is free.
    private var subjects: [Subject?] = []
    /// Per slot: the index of its entry in `heap`, or -1 while it has no deadline.
    private var positions: [Int] = []
    private var freeSlots: [Int] = []
    private var counter: UInt64 = 0

    package init() { denseIndex = nil }

    /// A queue that finds the slot of a subject for which `denseIndex` gives a number (0 or more)
    /// at that place in an array, with no hashing; other subjects are kept in a dictionary. The
    /// array grows to the largest index, so the numbers should be positions, not identifiers.
    package init(denseIndex: @escaping @Sendable (Subject) -> Int?) { self.denseIndex = denseIndex }

    /// The slot of `subject`, if it has one.
    private func slot(of subject: Subject) -> Int? {
        guard let index = denseIndex?(subject) else { return slots[subject] }
        return index < denseSlots.count && denseSlots[index] >= 0 ? denseSlots[index] : nil
    }

    /// Records the slot of `subject`.
    private mutating func setSlot(_ slot: Int, of subject: Subject) {
        guard let index = denseIndex?(subject) else {
            slots[subject] = slot
            return
        }
        precondition(index >= 0, "a dense index is 0 or more")
        if index >= denseSlots.count {
            denseSlots.append(contentsOf: repeatElement(-1, count: index + 1 - denseSlots.count))
        }
        denseSlots[index] = slot
    }

    /// Forgets the slot of `subject` and returns it, if it had one.
    private mutating func removeSlot(of subject: Subject) -> Int? {
        guard let index = denseIndex?(subject) else { return slots.removeValue(forKey: subject) }
        guard index < denseSlots.count, denseSlots[index] >= 0 else { return nil }
        defer { denseSlots[index] = -1 }
        return denseSlots[index]
    }

    /// Sets (or clears, with nil) the deadline of `subject`.
    package mutating func schedule(_ subject: Subject, at time: UnixSeconds?) {
        guard let time else {
            if let slot = removeSlot(of: subject) {
                if positions[slot] >= 0 { remove(at: positions[slot]) }
                subjects[slot] = nil
                freeSlots.append(slot)
            }
            return
        }
        counter += 1
        if let slot = slot(of: subject) {
            let index = positions[slot]
            guard index >= 0 else {
                heap.append(Entry(time: time, order: counter, slot: slot))
                positions[slot] = heap.count - 1
                siftUp(heap.count - 1)
                return
            }
            let old = heap[index]
            heap[index].time = time
            heap[index].order = counter
            if less(heap[index], old) { siftUp(index) } else { siftDown(index) }
            return
        }
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            subjects[slot] = subject
        } else {
            slot = subjects.count
            subjects.append(subject)
            positions.append(0)
        }
        setSlot(slot, of: subject)
        heap.append(Entry(time: time, order: counter, slot: slot))
        positions[slot] = heap.count - 1
        siftUp(heap.count - 1)
    }

    /// The earliest deadline, if any.
    package mutating func peek() -> (time: UnixSeconds, subject: Subject)? {
        guard let top = heap.first, let subject = subjects[top.slot] else { return nil }
        return (top.time, subject)
    }

    /// Removes and returns the earliest deadline at or before `limit`.
    package mutating func popDue(atOrBefore limit: UnixSeconds) -> (time: UnixSeconds, subject: Subject)? {
        guard let top = peek(), top.time <= limit else { return nil }
        remove(at: 0)
        return top
    }

    /// The number of deadlines.
    package var count: Int { heap.count }

    /// Removes the entry at heap `index`; its slot stays, without a deadline.
    private mutating func remove(at index: Int) {
        positions[heap[index].slot] = -1
        let last = heap.removeLast()
        guard index < heap.count else { return }
        let removed = heap[index]
        heap[index] = last
        positions[last.slot] = index
        if less(last, removed) { siftUp(index) } else { siftDown(index) }
    }

    /// Children per node: a push reschedules its activity, which moves an entry up or down the
    /// heap, and with four children there are half as many levels to walk (each a likely cache
    /// miss among thousands of entries) as with two; a node's children share a cache line or two.
    private static var arity: Int { 4 }

    private func less(_ a: Entry, _ b: Entry) -> Bool {
        a.time < b.time || (a.time == b.time && a.order < b.order)
    }

    private mutating func swapEntries(_ a: Int, _ b: Int) {
        heap.swapAt(a, b)
        positions[heap[a].slot] = a
        positions[heap[b].slot] = b
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / Self.arity
            guard less(heap[child], heap[parent]) else { return }
            swapEntries(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let first = Self.arity * parent + 1
            guard first < heap.count else { return }
            var smallest = parent
            for child in first..<min(first + Self.arity, heap.count) where less(heap[child], heap[smallest]) {
                smallest = child
            }
            if smallest == parent { return }
            swapEntries(parent, smallest)
            parent = smallest
        }
    }
}
