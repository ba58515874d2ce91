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
    // thread whose turn it is (`turns`); `cpu` is read after both threads have finished.
    private let chunks: [[WirePush]]
    private var server: PushServer
    private let turns = TurnTaking()
    private var cpu = [0.0, 0.0]
    private let finished = DispatchSemaphore(value: 0)

    init(chunks: [[WirePush]], server: PushServer) {
        self.chunks = chunks
        self.server = server
    }

    /// Runs both threads to the end, then moves the emulator to `finalTime` on the calling thread
    /// (counted as the first thread's), and returns the server (its emulator and tally) and each
    /// thread's CPU time.
    func run(advancingTo finalTime: Double) -> (server: PushServer, cpu: [Double]) {
        for loop in 0..<2 {
            // On the server, each loop draws the unique IDs of its own pushes.
            let ids = SeededIdentifiers(seed: 0xC0FFEE &+ UInt64(loop))
            let thread = Thread { [self] in
                let began = threadCPUTime()
                var index = loop
                while index < chunks.count {
                    let checked = chunks[index].map { PushServer.validate($0, ids: ids) }
                    turns.wait(for: index)
                    let effects = checked.map { server.deliverTakingEffects($0) }
                    turns.pass()
                    // Released after the turn, as the server releases them after the lock.
                    withExtendedLifetime(effects) {}
                    index += 2
                }
                cpu[loop] = threadCPUTime() - began
                finished.signal()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        finished.wait()
        finished.wait()
        let began = threadCPUTime()
        server.advance(to: finalTime)
        cpu[0] += threadCPUTime() - began
        return (server, cpu)
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
    // Held to sleep and to wake sleepers; `current` changes outside it.
    private let condition = NSCondition()
    private static var spins: Int { 200_000 }

    /// Waits until it is turn `turn`.
    func wait(for turn: Int) {
        for _ in 0..<Self.spins where current.load(ordering: .acquiring) == turn { return }
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
