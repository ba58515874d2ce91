import Synchronization

/// A fixed row of counters that any thread adds to with one relaxed atomic add, and a scrape
/// reads: the push path takes no lock to count, and labels are indexes into a bounded set.
final class MetricSlots: Sendable {
    /// One counter; a class so that the `Atomic` keeps a stable address inside an array.
    private final class Slot: Sendable {
        let value = Atomic<UInt64>(0)
    }

    private let slots: [Slot]

    /// `count` counters, all zero.
    init(count: Int) { slots = (0..<count).map { _ in Slot() } }

    /// How many counters the row holds.
    var count: Int { slots.count }

    /// Adds `amount` to counter `index`.
    func add(_ index: Int, _ amount: UInt64 = 1) {
        slots[index].value.wrappingAdd(amount, ordering: .relaxed)
    }

    /// Subtracts `amount` from counter `index` (gauges that go down).
    func subtract(_ index: Int, _ amount: UInt64 = 1) {
        slots[index].value.wrappingSubtract(amount, ordering: .relaxed)
    }

    /// The current value of counter `index`.
    func value(_ index: Int) -> UInt64 { slots[index].value.load(ordering: .relaxed) }
}

/// A Prometheus histogram with fixed upper bounds: one counter per bucket plus the count and
/// a sum kept in millionths (an integer, so it can be added atomically).
final class MetricHistogram: Sendable {
    /// The buckets' upper bounds, ascending; `+Inf` is implied.
    let bounds: [Double]
    private let buckets: MetricSlots
    private let sumMicros = Atomic<UInt64>(0)

    init(bounds: [Double]) {
        self.bounds = bounds
        buckets = MetricSlots(count: bounds.count + 1)
    }

    /// Counts one observation of `value` (negative values count as 0).
    func observe(_ value: Double) {
        let value = max(0, value)
        let index = bounds.firstIndex { value <= $0 } ?? bounds.count
        buckets.add(index)
        sumMicros.wrappingAdd(UInt64(min(value * 1e6, 1e18)), ordering: .relaxed)
    }

    /// The cumulative counts per bound (the last is `+Inf`, the total), and the sum.
    func snapshot() -> (cumulative: [UInt64], sum: Double) {
        var running: UInt64 = 0
        let cumulative = (0..<buckets.count).map { index -> UInt64 in
            running += buckets.value(index)
            return running
        }
        return (cumulative, Double(sumMicros.load(ordering: .relaxed)) / 1e6)
    }
}
