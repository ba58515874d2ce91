import RelayCore
import RelayNet
import RelayRedis
import RelayStore

// MARK: - Reads across devices

extension ClusterStore {
    /// Loads every device (`{relay}:devices`) into one emulator at the cluster's time and answers
    /// `query` over it, as SQLite mode answers over its whole fleet: lists across devices and a
    /// snapshot of the fleet come out the same, in the same order. It costs one `HGETALL` per
    /// device, so it suits the fleets a test or a demo runs; at scale, list per device.
    func readFleet<T: Sendable>(
        on loop: EventLoop, _ query: @escaping @Sendable (DeviceEmulator) -> T,
        completion: @escaping @Sendable (Result<T, StoreError>) -> Void
    ) {
        let client = client(on: loop)
        syncClock(on: client) { [self] synced in
            if case .failure(let error) = synced { return completion(.failure(error)) }
            client.send(RedisCommand(["SMEMBERS", ClusterKeys.devices], idempotent: true)) { [self] result in
                let devices: [String]
                switch result {
                case .failure(let error): return completion(.failure(Self.storeError(error)))
                case .success(let value): devices = (value.elements ?? []).compactMap(\.string)
                }
                let loaded = LoopCollector<DeviceRecord>(devices.count)
                let finish: @Sendable () -> Void = { [self] in
                    if let failure = loaded.failure { return completion(.failure(failure)) }
                    do {
                        let emulator = try DeviceEmulator.restore(
                            rules: rules, ids: ids, now: clock.now(), nextSeq: 1,
                            documents: loaded.values.flatMap(\.documents))
                        completion(.success(query(emulator)))
                    } catch {
                        completion(
                            .failure(
                                StoreError(
                                    operation: "load", code: 0, message: "the fleet cannot be restored: \(error)")))
                    }
                }
                guard !devices.isEmpty else { return finish() }
                for device in devices {
                    load(device, on: client) { record in
                        if loaded.record(record) { finish() }
                    }
                }
            }
        }
    }
}

/// Answers of reads sent together from one loop: keeps the values and the first failure, and
/// says when the last one arrived.
final class LoopCollector<Value>: @unchecked Sendable {  // Sendable: created and used on one event loop only.
    private var pending: Int
    private(set) var values: [Value] = []
    private(set) var failure: StoreError?

    init(_ count: Int) { pending = count }

    /// Records one answer; true when it was the last one.
    func record(_ outcome: Result<Value, StoreError>) -> Bool {
        switch outcome {
        case .success(let value): values.append(value)
        case .failure(let error): if failure == nil { failure = error }
        }
        pending -= 1
        return pending == 0
    }
}
