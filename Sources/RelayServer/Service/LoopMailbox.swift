import RelayNet
import Synchronization

/// Completions bound for event loops, gathered while the store writer calls one commit group's
/// completions and handed over with one `execute` per loop per group.
///
/// A commit answers a few dozen requests, mostly from the same two or three loops; handing each
/// completion over on its own woke a loop (an eventfd write, a context switch and a pass of its
/// own) several times per commit. `deliver` runs once the writer has called the whole group's
/// completions (`StoreWriter.setGroupObserver`), and a loop's completions keep their order.
final class LoopMailbox: Sendable {
    private let pending = Mutex<[(loop: EventLoop, work: [@Sendable () -> Void])]>([])

    /// Queues `work` for `loop`, to be handed over at the next `deliver`.
    func post(to loop: EventLoop, _ work: @escaping @Sendable () -> Void) {
        pending.withLock { pending in
            if let index = pending.firstIndex(where: { $0.loop === loop }) {
                pending[index].work.append(work)
            } else {
                pending.append((loop, [work]))
            }
        }
    }

    /// Hands every queued piece of work to its loop, one `execute` per loop.
    func deliver() {
        let batches = pending.withLock { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        for (loop, work) in batches {
            if work.count == 1 {
                loop.execute(work[0])
            } else {
                loop.execute { for item in work { item() } }
            }
        }
    }
}
