import RelayStore
import Synchronization

/// Hands batches to the store writer in the order their tickets were drawn.
///
/// The service draws a ticket while it holds the emulator's lock (so tickets follow the order in
/// which commands changed state and numbered their events), then builds the batch — serializing
/// JSON, the costly part — after letting the lock go. A batch whose ticket comes early waits here
/// for the ones before it, so the store still sees events in sequence order.
final class OrderedSubmitter: Sendable {
    private let writer: StoreWriter
    private let state = Mutex<State>(State())

    private struct State {
        var nextTicket: UInt64 = 0
        var nextToSubmit: UInt64 = 0
        var parked: [UInt64: (StoreBatch, @Sendable (Result<Void, StoreError>) -> Void)] = [:]
    }

    init(writer: StoreWriter) { self.writer = writer }

    /// The next ticket; draw it in the order the batches must reach the store.
    func ticket() -> UInt64 {
        state.withLock { state in
            defer { state.nextTicket += 1 }
            return state.nextTicket
        }
    }

    /// Submits `batch` once every earlier ticket's batch has been submitted.
    func submit(
        _ batch: StoreBatch, ticket: UInt64, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void
    ) {
        state.withLock { state in
            guard ticket == state.nextToSubmit else {
                state.parked[ticket] = (batch, completion)
                return
            }
            // Its turn (the usual case): straight to the writer, then whatever waited for it.
            writer.submit(batch, completion: completion)
            state.nextToSubmit += 1
            while !state.parked.isEmpty, let (ready, done) = state.parked.removeValue(forKey: state.nextToSubmit) {
                writer.submit(ready, completion: done)
                state.nextToSubmit += 1
            }
        }
    }
}
