import Foundation
import RelayCore
import Synchronization

/// The two-thread run, shaped like the server on two cores: each of two threads stands for an
/// event loop. It takes every other chunk of the written pushes, validates each push of its chunk
/// and builds its context (work the server does on the loop, in parallel), then waits for its
/// chunk's turn, delivers the chunk to the one emulator and takes the effects (work the server does
/// under the emulator's lock, one loop at a time, in arrival order), and releases the effects after
/// its turn. The turns keep the schedule's order, so the outcomes are the same as on one thread.
final class Pipeline: @unchecked Sendable {
    // `chunks` is read by both threads (each its own indices); `server` is changed only by the
    // thread whose turn it is (`turns`); each thread writes its own `Timing`, read after both
    // threads have finished.
    private let chunks: [[WirePush]]
    private var server: PushServer
    private let turns = TurnTaking()
    private let timings = [Timing(), Timing()]
    private let finished = DispatchSemaphore(value: 0)

    init(chunks: [[WirePush]], server: PushServer) {
        self.chunks = chunks
        self.server = server
        // Each thread takes every other chunk. Made ready here, before the clock starts.
        for (loop, timing) in timings.enumerated() {
            timing.tally.reserve(
                pushes: stride(from: loop, to: chunks.count, by: 2).reduce(0) { $0 + chunks[$1].count })
        }
    }

    /// One thread's CPU time in all, its time (monotonic clock) validating, waiting for its turns,
    /// delivering with the effects and after its turn counting and releasing them, and what it
    /// noted of its pushes' effects and answers.
    private final class Timing: @unchecked Sendable {
        var cpu = 0.0
        var validate = 0.0
        var wait = 0.0
        var deliver = 0.0
        var release = 0.0
        var tally = Tally()
    }

    /// Runs both threads to the end, then moves the emulator to `finalTime` on the calling thread
    /// (counted as the first thread's), and returns the server (its emulator), what each thread
    /// noted of its pushes, each thread's CPU time and its time validating, waiting for its turns,
    /// delivering and releasing after the turn, and how many turns were waited for asleep.
    /// The threads' tallies are returned apart: adding them up copies every list (tens of
    /// megabytes, tens of thousands of fresh pages), the bench's bookkeeping, which the caller
    /// does after it stops the clock.
    func run(advancingTo finalTime: Double) -> (
        server: PushServer, tallies: [Tally], cpu: [Double],
        phases: [(validate: Double, wait: Double, deliver: Double, release: Double)], sleeps: Int
    ) {
        for loop in 0..<2 {
            // On the server, each loop draws the unique IDs of its own pushes.
            let ids = SeededIdentifiers(seed: 0xC0FFEE &+ UInt64(loop))
            let timing = timings[loop]
            let thread = Thread { [self] in
                // Kept in this thread's own locals while it runs and written to its `Timing` once
                // at the end, so that neither thread writes memory the other's bookkeeping shares
                // while the run is timed (the two `Timing` objects lie next to each other). The
                // tally is moved out (its lists stay unshared, so appending never copies them).
                var tally = timing.tally
                timing.tally = Tally()
                var validateTime = 0.0
                var waitTime = 0.0
                var deliverTime = 0.0
                var releaseTime = 0.0
                // The thread's CPU time is read at its start and end only; its phases are timed
                // with the monotonic clock, four reads a chunk (a CPU-time read costs ~700 ns
                // here: five of them a chunk were ~1% of the run).
                let began = threadCPUTime()
                var validating = monotonicSeconds()
                var index = loop
                while index < chunks.count {
                    var checked = chunks[index].map { PushServer.validate($0, ids: ids) }
                    let validated = monotonicSeconds()
                    turns.wait(for: index)
                    let delivering = monotonicSeconds()
                    var delivered = checked.map { server.deliverTakingEffects($0) }
                    let deliveredAt = monotonicSeconds()
                    turns.pass()
                    // Counted (the bench's own bookkeeping) and released after the turn, as the
                    // server serializes and releases the effects, and its closures the requests,
                    // after the lock; timed apart, so the report shows what it costs.
                    for push in delivered { tally.count(push) }
                    delivered = []
                    checked = []
                    let released = monotonicSeconds()
                    validateTime += validated - validating
                    waitTime += delivering - validated
                    deliverTime += deliveredAt - delivering
                    releaseTime += released - deliveredAt
                    validating = released
                    index += 2
                }
                timing.tally = tally
                timing.validate = validateTime
                timing.wait = waitTime
                timing.deliver = deliverTime
                timing.release = releaseTime
                timing.cpu = threadCPUTime() - began
                finished.signal()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        finished.wait()
        finished.wait()
        let began = threadCPUTime()
        let advancingFrom = monotonicSeconds()
        server.advance(to: finalTime)
        timings[0].deliver += monotonicSeconds() - advancingFrom
        timings[0].cpu += threadCPUTime() - began
        return (
            server, timings.map(\.tally), timings.map(\.cpu),
            timings.map { ($0.validate, $0.wait, $0.deliver, $0.release) },
            turns.sleeps.load(ordering: .relaxed)
        )
    }
}

/// The `--split` run: two emulators, each with every other device and the activities on them,
/// each driven by a thread of its own that validates and delivers its devices' pushes in time
/// order and then moves its emulator to the final time. The threads share nothing, so this is
/// the most that splitting delivery by device could give on two cores. It is not how the relay
/// runs (one emulator, behind a lock), and a split relay would still have to order the two
/// emulators' events into one sequence, which is not measured here.
final class SplitRun: @unchecked Sendable {
    /// One emulator's part, touched only by its own thread until both have finished.
    private final class Part: @unchecked Sendable {
        let pushes: [WirePush]
        var server: PushServer
        var cpu = 0.0

        init(pushes: [WirePush], server: PushServer) {
            self.pushes = pushes
            self.server = server
        }
    }

    private var parts: [Part]
    private let finished = DispatchSemaphore(value: 0)

    /// `pushes[i]` go to `servers[i]`.
    init(pushes: [[WirePush]], servers: [PushServer]) {
        parts = zip(pushes, servers).map { Part(pushes: $0, server: $1) }
        for part in parts { part.server.tally.reserve(pushes: part.pushes.count) }
    }

    /// Runs both threads to the end; returns the servers (their emulators and tallies) and each
    /// thread's CPU time.
    func run(advancingTo finalTime: Double) -> (servers: [PushServer], cpu: [Double]) {
        for (index, part) in parts.enumerated() {
            let ids = SeededIdentifiers(seed: 0xC0FFEE &+ UInt64(index))
            let thread = Thread { [finished] in
                let began = threadCPUTime()
                for push in part.pushes {
                    let delivered = part.server.deliverTakingEffects(
                        PushServer.validate(push, ids: ids))
                    part.server.tally.count(delivered)
                }
                part.server.advance(to: finalTime)
                part.cpu = threadCPUTime() - began
                finished.signal()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        for _ in parts { finished.wait() }
        let servers = parts.map(\.server)
        let cpu = parts.map(\.cpu)
        parts = []
        return (servers, cpu)
    }
}

/// Turns numbered 0, 1, 2, ... taken in order: `wait(for: n)` returns once turns 0 to n - 1 have
/// been passed. Stands for the emulator's lock, taken in the order the requests arrived.
///
/// A waiter first spins on the turn for a while (a chunk's delivery takes about half a
/// millisecond), then sleeps on a condition: waking a sleeping thread takes tens of microseconds
/// on this machine, which at every turn would be the harness's cost, not the core's.
final class TurnTaking: @unchecked Sendable {
    private let current = Atomic<Int>(0)
    /// How many waits ran out of spins and slept.
    let sleeps = Atomic<Int>(0)
    // Held to sleep and to wake sleepers; `current` changes outside it.
    private let condition = NSCondition()
    private static var spins: Int { 200_000 }

    /// Waits until it is turn `turn`.
    func wait(for turn: Int) {
        for _ in 0..<Self.spins where current.load(ordering: .acquiring) == turn { return }
        sleeps.add(1, ordering: .relaxed)
        condition.lock()
        // A pass between this check and the wait cannot be missed: `pass` takes the lock to wake.
        while current.load(ordering: .acquiring) != turn { condition.wait() }
        condition.unlock()
    }

    /// Ends the current turn.
    func pass() {
        current.add(1, ordering: .releasing)
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }
}
