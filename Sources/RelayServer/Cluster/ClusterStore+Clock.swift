import RelayCore
import RelayJSON
import RelayNet
import RelayRedis
import RelayStore

// MARK: - The shared virtual clock and due transitions

extension ClusterStore {
    /// The shared clock as stored: its state and epoch (bumped by every change).
    struct StoredClock {
        var state: VirtualClock
        var epoch: Int64

        /// `{"realAnchor", "virtualAnchor", "rate", "epoch"}`.
        var json: JSONValue {
            [
                "realAnchor": .number(state.realAnchor), "virtualAnchor": .number(state.virtualAnchor),
                "rate": .number(state.rate), "epoch": .int(epoch),
            ]
        }

        init(state: VirtualClock, epoch: Int64) {
            self.state = state
            self.epoch = epoch
        }

        init?(_ bytes: [UInt8]) {
            guard let json = try? JSONValue(parsing: bytes), let real = json["realAnchor"]?.doubleValue,
                let virtual = json["virtualAnchor"]?.doubleValue, let rate = json["rate"]?.doubleValue,
                let epoch = json["epoch"]?.int64Value
            else { return nil }
            var state = VirtualClock(showing: virtual, atReal: real)
            guard (try? state.setRate(rate, real: real)) != nil else { return nil }
            self.init(state: state, epoch: epoch)
        }
    }

    /// With a virtual clock, takes the cluster's clock as this node's (creating it from this
    /// node's when the cluster has none); on the system clock there is nothing to do.
    func syncClock(on client: RedisClusterClient, completion: @escaping (Result<Int64, StoreError>) -> Void) {
        guard clock.mode == .virtual else { return completion(.success(0)) }
        client.send(RedisCommand(["GET", ClusterKeys.clock], idempotent: true)) { [self] result in
            switch result {
            case .failure(let error): completion(.failure(Self.storeError(error)))
            case .success(.bulkString(let bytes)):
                guard let stored = StoredClock(bytes) else {
                    return completion(
                        .failure(StoreError(operation: "clock", code: 0, message: "\(ClusterKeys.clock) is unreadable"))
                    )
                }
                clock.adopt(stored.state)
                completion(.success(stored.epoch))
            case .success:
                // No clock yet: this node's becomes the cluster's, unless another node's got there first.
                let first = StoredClock(state: clock.virtualState, epoch: 1)
                let text = String(decoding: first.json.serialized(), as: UTF8.self)
                client.send(RedisCommand(["SET", ClusterKeys.clock, text, "NX"], idempotent: true)) { [self] _ in
                    syncClock(on: client, completion: completion)
                }
            }
        }
    }

    /// Changes the shared virtual clock with `change` (retrying when another node changed it
    /// meanwhile), then applies what fell due on every device. Completes with the clock's JSON.
    func changeClock(
        on loop: EventLoop, _ change: @escaping (inout VirtualClock, UnixSeconds) throws(ClockError) -> Void,
        completion: @escaping @Sendable (Result<JSONValue, RelayService.ClockChangeError>) -> Void
    ) {
        let client = client(on: loop)
        syncClock(on: client) { [self] synced in
            let epoch: Int64
            switch synced {
            case .failure(let error): return completion(.failure(.store(error)))
            case .success(let current): epoch = current
            }
            let state: VirtualClock
            do throws(ClockError) {
                state = try clock.change(change)
            } catch {
                return completion(.failure(.clock(error)))
            }
            let text = String(decoding: StoredClock(state: state, epoch: epoch + 1).json.serialized(), as: UTF8.self)
            client.eval(ClusterScripts.setClock, keys: [ClusterKeys.clock], arguments: [String(epoch), text]) {
                [self] result in
                switch result {
                case .failure(let error): completion(.failure(.store(Self.storeError(error))))
                case .success(let reply):
                    guard reply.elements?.first?.string == "ok" else {
                        return changeClock(on: loop, change, completion: completion)
                    }
                    let json = clock.json
                    let event = RelayEvent(type: .clock, at: clock.now(), subjectKey: "clock", subject: json)
                    let fed = FeedEvent(event, data: event.data.serialized())
                    // What fell due is applied first, then the change is announced, as on one node.
                    sweep(on: loop) { [self] swept in
                        if case .failure(let error) = swept { return completion(.failure(.store(error))) }
                        feed([fed], on: client) { outcome in
                            completion(outcome.map { _ in json }.mapError { .store($0) })
                        }
                    }
                }
            }
        }
    }

    /// Devices whose next transition is due by now, read per sweep.
    static let sweepBatch = 1000

    /// Applies every due transition: each device in `{relay}:due` whose time has come is loaded,
    /// advanced to now and committed. Two nodes sweeping at once race per device and the version
    /// check lets one win; the other finds nothing left to do. Completes with the devices advanced.
    func sweep(on loop: EventLoop, completion: @escaping @Sendable (Result<Int, StoreError>) -> Void) {
        let client = client(on: loop)
        syncClock(on: client) { [self] synced in
            if case .failure(let error) = synced { return completion(.failure(error)) }
            let now = clock.now()
            let range = RedisCommand(
                [
                    "ZRANGEBYSCORE", ClusterKeys.due, "-inf", String(now), "WITHSCORES", "LIMIT", "0",
                    String(Self.sweepBatch),
                ],
                idempotent: true)
            client.send(range) { [self] result in
                var due: [(device: String, score: String)] = []
                switch result {
                case .failure(let error): return completion(.failure(Self.storeError(error)))
                case .success(let value):
                    // RESP3 answers [[member, score], ...]; RESP2 a flat [member, score, ...].
                    let elements = value.elements ?? []
                    if elements.allSatisfy({ $0.elements != nil }) {
                        for pair in elements {
                            guard let parts = pair.elements, parts.count == 2, let device = parts[0].string else {
                                continue
                            }
                            due.append((device, Self.scoreText(parts[1])))
                        }
                    } else {
                        var index = 0
                        while index + 1 < elements.count {
                            if let device = elements[index].string {
                                due.append((device, Self.scoreText(elements[index + 1])))
                            }
                            index += 2
                        }
                    }
                }
                guard !due.isEmpty else { return completion(.success(0)) }
                let swept = LoopCollector<UnixSeconds?>(due.count)
                let count = due.count
                for entry in due {
                    perform(
                        in: .device(entry.device), on: loop,
                        { emulator, now -> UnixSeconds? in
                            emulator.advance(to: now)
                            return emulator.nextDeadline()
                        }
                    ) { outcome in
                        if case .success(let next) = outcome {
                            // The entry may have been stale (its device had nothing due): set it right.
                            client.eval(
                                ClusterScripts.repairDue, keys: [ClusterKeys.due],
                                arguments: [entry.device, entry.score, next.map { String($0) } ?? ""]
                            ) { _ in }
                        }
                        guard swept.record(outcome) else { return }
                        completion(swept.failure.map { .failure($0) } ?? .success(count))
                    }
                }
            }
        }
    }

    /// A score as Redis wrote it (RESP3 double or RESP2 text).
    static func scoreText(_ value: RESPValue) -> String {
        if case .double(let number) = value { return String(number) }
        return value.string ?? "0"
    }
}
