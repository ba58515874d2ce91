/// Runs `body` `iterations` times, several rounds, and returns the best round's operations per second.
///
/// The best round is the least disturbed by other work on a shared machine. `body` returns a
/// number that is summed into `sink`, so the optimizer cannot drop the work.
func measure(iterations: Int, rounds: Int = 5, _ body: () throws -> Int) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<rounds {
        let clock = ContinuousClock()
        let started = clock.now
        for _ in 0..<iterations { sink &+= try body() }
        let elapsed = clock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        best = min(best, seconds)
    }
    return Double(iterations) / best
}

/// Accumulates results of the measured work; printed at the end so it is observably used.
nonisolated(unsafe) var sink = 0
