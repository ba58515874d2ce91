public import RelayCore
package import RelayJSON
import RelayNet
public import RelayStore
import Synchronization

/// The relay's state and its single point of change: the `DeviceEmulator` behind a lock, the
/// durable store behind it, the clock, and the hub that fans events out.
///
/// `perform` runs a command at the relay's current time, writes everything it changed as one
/// store batch (group-committed with other requests' batches) and only then publishes its events
/// and calls back: a `200` is sent after the commit, so it survives `kill -9`. Batches are handed
/// to the writer while the lock is held, so the log's order is the emulator's order.
public final class RelayService: Sendable {
    private let emulator: Mutex<DeviceEmulator>
    package let store: Store
    package let clock: RelayTimeSource
    package let hub: EventHub
    package let retention: Retention
    private let submitter: OrderedSubmitter
    private let mailbox = LoopMailbox()
    /// Cluster mode: the fleet in Redis, loaded per command; nil keeps it in `emulator`.
    let cluster: ClusterStore?

    /// How much of the logs the store keeps.
    public struct Retention: Sendable {
        package var events: Int
        package var pushes: Int

        public init(events: Int = 100_000, pushes: Int = 10_000) {
            self.events = events
            self.pushes = pushes
        }
    }

    /// Meta keys in the store.
    enum MetaKey {
        static let nextSeq = "nextSeq"
        static let virtualClock = "virtualClock"
        static let firstStart = "firstStart"
    }

    init(
        emulator: DeviceEmulator, store: Store, clock: RelayTimeSource, hub: EventHub, retention: Retention,
        cluster: ClusterSettings? = nil
    ) throws {
        self.cluster = try cluster.map {
            try ClusterStore(settings: $0, rules: emulator.rules, ids: emulator.ids, clock: clock, retention: retention)
        }
        self.emulator = Mutex(emulator)
        self.store = store
        self.clock = clock
        self.hub = hub
        self.retention = retention
        submitter = OrderedSubmitter(writer: store.writer)
        store.writer.setGroupObserver { [mailbox] in mailbox.deliver() }
    }

    /// Opens the store at `path`, restores the emulator from it and applies, in order, every
    /// timed transition that fell due while the relay was down.
    public static func open(
        path: String, rules: RelayRules, clockMode: RelayTimeSource.Mode, ids: any IdentifierGenerator,
        retention: Retention = Retention(), durability: StoreDurability = DurabilitySettings().storeDurability,
        cluster: ClusterSettings? = nil
    ) throws -> RelayService {
        let store = try Store(path: path, durability: durability)
        store.writer.setSyncFailureObserver { error in
            RelayLog.error(
                "store.sync.failed",
                ["error": error.message, "effect": "acknowledged commits may not survive power loss"])
        }
        if let migration = store.writer.migration, migration.from > 0 {
            RelayLog.info(
                "store.migrated",
                [
                    "from": String(migration.from), "to": String(migration.to),
                    "seconds": String(format: "%.3f", migration.seconds),
                ])
        }
        let reader = store.reader
        let realNow = SystemClock().now()
        var firstStart = realNow
        if let bytes = try reader.meta(MetaKey.firstStart), let stored = try? JSONValue(parsing: bytes).doubleValue {
            firstStart = stored
        } else {
            var batch = StoreBatch()
            batch.setMeta(MetaKey.firstStart, JSONValue.number(realNow).serialized())
            try store.writer.submitAndWait(batch)
        }
        let clock: RelayTimeSource
        switch clockMode {
        case .system:
            // State kept on a virtual clock ahead of real time would see time go backwards: every
            // real timestamp would look old and due transitions would wait for the real clock.
            if let bytes = try reader.meta(MetaKey.virtualClock), let stored = try? JSONValue(parsing: bytes),
                let anchor = stored["virtualAnchor"]?.doubleValue, let rate = stored["rate"]?.doubleValue
            {
                let shown = anchor + max(0, realNow - (stored["realAnchor"]?.doubleValue ?? realNow)) * rate
                if shown > realNow + 1 {
                    store.close()
                    throw RelayStartError.store(
                        path: path,
                        message: "its virtual clock stands \(DeviceEmulator.clockSpan(shown - realNow)) ahead of the"
                            + " system clock, which would run time backwards; start it with --clock virtual, or use"
                            + " a new data directory")
                }
            }
            clock = RelayTimeSource()
        case .virtual:
            var state = VirtualClock(showing: firstStart, atReal: realNow)
            if let bytes = try reader.meta(MetaKey.virtualClock), let stored = try? JSONValue(parsing: bytes),
                let anchor = stored["virtualAnchor"]?.doubleValue, let rate = stored["rate"]?.doubleValue
            {
                // Restart: the virtual clock continues from where it stood, at its rate, from now.
                let shown = anchor + max(0, realNow - (stored["realAnchor"]?.doubleValue ?? realNow)) * rate
                state = VirtualClock(showing: shown, atReal: realNow)
                try? state.setRate(rate, real: realNow)
            }
            clock = RelayTimeSource(virtual: state)
        }
        var documents: [(kind: DocumentKind, body: JSONValue)] = []
        var keys: [String] = []
        for kind in DocumentKind.allCases {
            for stored in try reader.documents(kind: kind.rawValue) {
                let key = "(kind \(kind.rawValue), id \(stored.id))"
                let body: JSONValue
                do {
                    body = try JSONValue(parsing: stored.body)
                } catch {
                    store.close()
                    throw RelayStartError.unreadableRow(path: path, table: "documents", key: key, message: "\(error)")
                }
                // A document is never null; a null row is one deleted, and restores as nothing.
                if body.isNull { continue }
                documents.append((kind, body))
                keys.append(key)
            }
        }
        var nextSeq = UInt64(max(0, try reader.latestEventSeq() ?? 0)) + 1
        if let bytes = try reader.meta(MetaKey.nextSeq), let stored = try? JSONValue(parsing: bytes).int64Value {
            nextSeq = max(nextSeq, UInt64(max(0, stored)))
        }
        let emulator: DeviceEmulator
        do {
            emulator = try DeviceEmulator.restore(
                rules: rules, ids: ids, now: clock.now(), nextSeq: nextSeq, documents: documents)
        } catch {
            // Only on failure: find the first row that cannot be restored on its own, to name it.
            let culprit = documents.indices.first { index in
                (try? DeviceEmulator.restore(
                    rules: rules, ids: ids, now: clock.now(), nextSeq: nextSeq, documents: [documents[index]])) == nil
            }
            store.close()
            throw RelayStartError.unreadableRow(
                path: path, table: "documents", key: culprit.map { keys[$0] } ?? "(unknown)",
                message: "\(error)")
        }
        let service = try RelayService(
            emulator: emulator, store: store, clock: clock, hub: EventHub(store: store), retention: retention,
            cluster: cluster)
        if clockMode == .virtual { try service.persistClock() }
        try service.catchUp()
        return service
    }

    /// Applies what fell due up to now and waits for it to be durable (startup).
    func catchUp() throws {
        let latch = Mutex<Result<Void, StoreError>?>(nil)
        let done = Atomic<Bool>(false)
        perform(
            { emulator, now in emulator.advance(to: now) },
            completion: { result in
                latch.withLock { $0 = result }
                done.store(true, ordering: .releasing)
            })
        store.writer.flush()
        while !done.load(ordering: .acquiring) { store.writer.flush() }
        if case .failure(let error)? = latch.withLock({ $0 }) { throw error }
    }

    /// Runs `command` at the relay's current time, commits what it changed, then publishes its
    /// events and calls `completion` (on the store's writer thread, or at once when nothing changed).
    package func perform<T: Sendable>(
        _ command: (inout DeviceEmulator, UnixSeconds) -> T,
        completion: @escaping @Sendable (Result<T, StoreError>) -> Void
    ) {
        let (result, effects, nextSeq, ticket) = emulator.withLock { emulator in
            let now = clock.now()
            let result = command(&emulator, now)
            let effects = emulator.takeEffects()
            return (result, effects, emulator.nextSeq, effects.isEmpty ? nil : submitter.ticket())
        }
        guard let ticket else {
            completion(.success(result))
            return
        }
        // The route's follow-up (logging, building the answer) runs back on the caller's loop, not on
        // the store's writer thread, which is the one thread every commit shares; a commit group's
        // completions reach each loop together.
        let origin = EventLoop.current
        let mailbox = self.mailbox
        commit(effects, nextSeq: nextSeq, ticket: ticket) { outcome in
            if let origin {
                mailbox.post(to: origin) { completion(outcome.map { result }) }
            } else {
                completion(outcome.map { result })
            }
        }
    }

    /// Builds the batch for `effects` (outside the lock), submits it in ticket order, and after the
    /// commit publishes the events and calls `completion`.
    private func commit(
        _ effects: EmulatorEffects, nextSeq: UInt64, ticket: UInt64, extra: [(String, [UInt8])] = [],
        completion: @escaping @Sendable (Result<Void, StoreError>) -> Void
    ) {
        let serialized = effects.serialized()
        let eventData = serialized.events
        var batch = Self.batch(for: effects, serialized: serialized)
        for (key, value) in extra { batch.setMeta(key, value) }
        // Pruning walks the retained tail to find its cut, so it runs once per tenth of the retention.
        let every = UInt64(max(1000, retention.events / 10))
        if let first = effects.events.first?.seq, let last = effects.events.last?.seq,
            (first - 1) / every != last / every
        {
            batch.pruneEvents(keepingLast: retention.events)
            batch.prunePushes(keepingLast: retention.pushes)
            // Only pruning can empty the event log, whose last seq otherwise tells `open` the next one.
            batch.setMeta(MetaKey.nextSeq, JSONValue.int(Int64(nextSeq)).serialized())
        }
        let hub = self.hub
        let events = effects.events
        let submitted = ContinuousClock.now
        submitter.submit(batch, ticket: ticket) { outcome in
            switch outcome {
            case .success:
                let elapsed = submitted.duration(to: .now).components
                RelayMetrics.shared.countCommit(
                    seconds: Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18, events: events.count)
                hub.publish(events, data: eventData)
            case .failure(let error):
                RelayLog.error("store.commit", ["error": error.description, "events": String(events.count)])
            }
            completion(outcome)
        }
    }

    /// Runs `command` on the device `scope` names and commits what it changed: in cluster mode
    /// by loading the device from Redis (`ClusterStore`), otherwise as `perform(_:completion:)`.
    /// In cluster mode it must be called on an event loop, where `completion` runs too.
    package func perform<T: Sendable>(
        in scope: StateScope, _ command: @escaping @Sendable (inout DeviceEmulator, UnixSeconds) -> T,
        completion: @escaping @Sendable (Result<T, StoreError>) -> Void
    ) {
        guard let cluster else { return perform(command, completion: completion) }
        guard let loop = EventLoop.current else { return completion(.failure(Self.offLoop)) }
        cluster.perform(in: scope, on: loop, command, completion: completion)
    }

    /// Answers `query` over the device `scope` names: at once from the emulator, or in cluster
    /// mode once the device is loaded from Redis (on the caller's loop).
    package func read<T: Sendable>(
        in scope: StateScope, _ query: @escaping @Sendable (DeviceEmulator) -> T,
        completion: @escaping @Sendable (Result<T, StoreError>) -> Void
    ) {
        guard let cluster else { return completion(.success(read(query))) }
        guard let loop = EventLoop.current else { return completion(.failure(Self.offLoop)) }
        cluster.read(in: scope, on: loop, query, completion: completion)
    }

    /// Answers `query` over the whole fleet: at once from the emulator, or in cluster mode once
    /// every device is loaded from Redis (on the caller's loop).
    func readFleet<T: Sendable>(
        _ query: @escaping @Sendable (DeviceEmulator) -> T,
        completion: @escaping @Sendable (Result<T, StoreError>) -> Void
    ) {
        guard let cluster else { return completion(.success(read(query))) }
        guard let loop = EventLoop.current else { return completion(.failure(Self.offLoop)) }
        cluster.readFleet(on: loop, query, completion: completion)
    }

    /// Cluster mode serves commands from event loops, where each has its Redis client.
    static let offLoop = StoreError(
        operation: "cluster", code: 0, message: "cluster mode runs commands on event loops only")

    /// Closes cluster mode's Redis connections (each on its loop); nothing to do with SQLite.
    package func shutdownCluster() { cluster?.shutdown() }

    /// Event-stream subscribers this node serves: the hub's, and in cluster mode those that
    /// follow Redis Streams.
    package var subscriberCount: Int {
        hub.subscriberCount + (cluster?.subscribers.load(ordering: .relaxed) ?? 0)
    }

    /// Reads the emulator's state under the lock (no persistence).
    package func read<T>(_ query: (DeviceEmulator) throws -> T) rethrows -> T {
        try emulator.withLock { try query($0) }
    }

    /// The time of the next timed transition.
    package func nextDeadline() -> UnixSeconds? { emulator.withLock { $0.nextDeadline() } }

    /// Applies every transition that is due (the ticker calls this, on a loop).
    package func tick() {
        if let cluster {
            guard let loop = EventLoop.current, !cluster.sweeping.exchange(true, ordering: .acquiring) else { return }
            cluster.sweep(on: loop) { result in
                if case .failure(let error) = result { RelayLog.error("cluster.sweep", ["error": error.description]) }
                cluster.sweeping.store(false, ordering: .releasing)
            }
            return
        }
        guard let deadline = nextDeadline(), deadline <= clock.now() else { return }
        perform({ emulator, now in emulator.advance(to: now) }, completion: { _ in })
    }

    /// Changes the virtual clock and applies what falls due on the way, recording a `clock` event.
    package func changeClock(
        _ change: @escaping (inout VirtualClock, UnixSeconds) throws(ClockError) -> Void,
        completion: @escaping @Sendable (Result<JSONValue, ClockChangeError>) -> Void
    ) {
        guard clock.mode == .virtual else {
            completion(.failure(.notVirtual))
            return
        }
        if let cluster {
            guard let loop = EventLoop.current else { return completion(.failure(.store(Self.offLoop))) }
            return cluster.changeClock(on: loop, change, completion: completion)
        }
        let changed: Result<(EmulatorEffects, UInt64, UInt64, VirtualClock, JSONValue), ClockError> = emulator.withLock
        {
            emulator in
            do throws(ClockError) {
                let state = try clock.change(change)
                let now = clock.now()
                emulator.advance(to: now)
                let clockJSON = clock.json
                emulator.record(RelayEvent(type: .clock, at: now, subjectKey: "clock", subject: clockJSON))
                return .success((emulator.takeEffects(), emulator.nextSeq, submitter.ticket(), state, clockJSON))
            } catch {
                return .failure(error)
            }
        }
        switch changed {
        case .failure(let error):
            completion(.failure(.clock(error)))
        case .success(let (effects, nextSeq, ticket, state, clockJSON)):
            commit(
                effects, nextSeq: nextSeq, ticket: ticket,
                extra: [(MetaKey.virtualClock, Self.clockJSON(state).serialized())]
            ) { outcome in
                completion(outcome.map { clockJSON }.mapError { .store($0) })
            }
        }
    }

    /// Why the clock could not change.
    package enum ClockChangeError: Error, Sendable {
        case notVirtual
        case clock(ClockError)
        case store(StoreError)
    }

    /// Writes the virtual clock's state and waits for the commit (startup).
    func persistClock() throws {
        var batch = StoreBatch()
        batch.setMeta(MetaKey.virtualClock, Self.clockJSON(clock.virtualState).serialized())
        try store.writer.submitAndWait(batch)
    }

    static func clockJSON(_ state: VirtualClock) -> JSONValue {
        [
            "realAnchor": .number(state.realAnchor), "virtualAnchor": .number(state.virtualAnchor),
            "rate": .number(state.rate),
        ]
    }

    /// The store batch for a command's effects, `serialized` being their bytes.
    static func batch(for effects: EmulatorEffects, serialized: SerializedEffects) -> StoreBatch {
        var batch = StoreBatch()
        let records = effects.pushRecords
        // Room for the pruning writes `commit` may add too.
        batch.writes.reserveCapacity(effects.documents.count + effects.events.count + records.count + 3)
        for (document, body) in zip(effects.documents, serialized.documents) {
            if let body {
                batch.upsert(
                    StoredDocument(
                        kind: document.kind.rawValue, id: document.id, deviceId: document.deviceId,
                        bundleId: document.bundleId, state: document.state, body: body))
            } else {
                batch.deleteDocument(kind: document.kind.rawValue, id: document.id)
            }
        }
        for (event, data) in zip(effects.events, serialized.events) {
            batch.append(
                StoredEvent(
                    seq: Int64(event.seq), type: event.type.rawValue, at: event.at, deviceId: event.deviceId,
                    bundleId: event.bundleId, activityId: event.activityId, alarmId: event.alarmId,
                    data: data))
        }
        for (record, bytes) in zip(records, serialized.pushRecords) {
            batch.append(
                PushLogEntry(
                    apnsId: record.apnsId, uniqueId: record.uniqueId, token: record.token, channelId: record.channelId,
                    bundleId: record.bundleId, receivedAt: record.receivedAt, record: bytes))
        }
        return batch
    }
}
