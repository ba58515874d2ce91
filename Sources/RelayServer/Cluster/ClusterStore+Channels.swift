import RelayCore
import RelayJSON
import RelayNet
import RelayRedis
import RelayStore

extension ClusterKeys {
    /// A broadcast channel: `doc` (its JSON document, as SQLite keeps it) and `v` (its version).
    static func channel(_ id: String) -> String { "{chn:\(id)}" }
    /// The devices with activities subscribed to the channel, each scored with the latest time
    /// one of them may still run (the bound of their `systemEndAt`); same slot as the channel.
    static func channelDevices(_ id: String) -> String { "{chn:\(id)}:dev" }
    /// The ids of an app's channels: `all-channels` and the per-app cap.
    static func appChannels(_ bundleId: String) -> String { "chapp:{\(bundleId)}" }
}

/// A channel that a device's command may join (an activity started with `pushType:
/// {"channel": id}`, or a push-to-start with `input-push-channel`).
struct JoinedChannel: Sendable {
    var id: String
    var bundleId: String
}

// MARK: - Channel records

extension ClusterStore {
    /// A channel as stored: its document and version (nil: no such channel).
    struct ChannelRecord {
        var channel: EmulatedChannel?
        var version: String = "0"
    }

    /// Loads channel `id` (`doc` and `v` of its hash).
    func loadChannel(
        _ id: String, on client: RedisClusterClient, completion: @escaping (Result<ChannelRecord, StoreError>) -> Void
    ) {
        client.send(RedisCommand(["HMGET", ClusterKeys.channel(id), "doc", "v"], idempotent: true)) { result in
            completion(
                result.mapError(Self.storeError).flatMap { value in
                    let fields = value.elements ?? []
                    var record = ChannelRecord(version: fields.count > 1 ? fields[1].string ?? "0" : "0")
                    guard let doc = fields.first, case .bulkString(let bytes) = doc else { return .success(record) }
                    do {
                        record.channel = try EmulatedChannel.fromJSON(try JSONValue(parsing: bytes))
                        return .success(record)
                    } catch {
                        return .failure(
                            StoreError(operation: "load", code: 0, message: "channel \(id) cannot be read: \(error)"))
                    }
                })
        }
    }

    /// An emulator holding just `channel` (or nothing) at `now`: the pure core decides what a
    /// channel command does, as in SQLite mode.
    func channelEmulator(_ channel: EmulatedChannel?, now: UnixSeconds) throws(StoreError) -> DeviceEmulator {
        do {
            return try DeviceEmulator.restore(
                rules: rules, ids: ids, now: now, nextSeq: 1,
                documents: channel.map { [(DocumentKind.channel, $0.json)] } ?? [])
        } catch {
            throw StoreError(operation: "load", code: 0, message: "channel cannot be restored: \(error)")
        }
    }

    /// The channel document a command wrote on `emulator` (nil: none).
    static func channelWrite(_ effects: EmulatorEffects) -> String? {
        let serialized = effects.serialized()
        for (document, body) in zip(effects.documents, serialized.documents) where document.kind == .channel {
            return body.map { String(decoding: $0, as: UTF8.self) }
        }
        return nil
    }

    /// With `durability.replicas` n, `WAIT n` on the masters of `keys`; nothing otherwise.
    func waitForReplicas(of keys: [String]) -> [RedisCommand] {
        guard settings.replicas > 0 else { return [] }
        return keys.map { key in
            RedisCommand(
                arguments: [
                    Array("WAIT".utf8), Array(String(settings.replicas).utf8),
                    Array(String(settings.replicaTimeoutMs).utf8),
                ],
                key: Array(key.utf8), idempotent: true)
        }
    }

    /// Sends `commands` one after another (each after the previous answered), failing at the
    /// first error or at a `WAIT` short of its replicas.
    func sendInOrder(
        _ commands: [RedisCommand], on client: RedisClusterClient,
        completion: @escaping (Result<Void, StoreError>) -> Void
    ) {
        guard let command = commands.first else { return completion(.success(())) }
        client.send(command) { [self] result in
            if case .failure(let error) = checked(command, result) { return completion(.failure(error)) }
            sendInOrder(Array(commands.dropFirst()), on: client, completion: completion)
        }
    }
}

// MARK: - Channel management

extension ClusterStore {
    /// Creates a channel of `bundleId`: its record first, then its id in the app's set by
    /// `ClusterScripts.addChannel`, which refuses past the per-app cap (the record is then
    /// deleted). A record whose id never reached the set (a crash in between) is unreachable:
    /// its random id was never answered.
    func createChannel(
        bundleId: String, policy: MessageStoragePolicy, on loop: EventLoop,
        completion: @escaping @Sendable (Result<Result<EmulatedChannel, APNsError>, StoreError>) -> Void
    ) {
        let client = client(on: loop)
        let appKey = ClusterKeys.appChannels(bundleId)
        syncClock(on: client) { [self] synced in
            if case .failure(let error) = synced { return completion(.failure(error)) }
            client.send(RedisCommand(["SCARD", appKey], idempotent: true)) { [self] counted in
                let existing: Int
                switch counted {
                case .failure(let error): return completion(.failure(Self.storeError(error)))
                case .success(let value): existing = Int(value.integer ?? 0)
                }
                var emulator: DeviceEmulator
                do throws(StoreError) {
                    emulator = try channelEmulator(nil, now: clock.now())
                } catch {
                    return completion(.failure(error))
                }
                let created = emulator.createChannel(
                    bundleId: bundleId, policy: policy, existingChannels: existing, at: clock.now())
                guard case .success(let channel) = created, let doc = Self.channelWrite(emulator.takeEffects()) else {
                    return completion(.success(created))
                }
                let key = ClusterKeys.channel(channel.id)
                sendInOrder([RedisCommand(["HSET", key, "doc", doc, "v", "1"], idempotent: true)], on: client) {
                    [self] written in
                    if case .failure(let error) = written { return completion(.failure(error)) }
                    client.eval(
                        ClusterScripts.addChannel, keys: [appKey],
                        arguments: [channel.id, String(BroadcastChannel.maxChannelsPerApp)]
                    ) { [self] added in
                        switch added {
                        case .failure(let error): completion(.failure(Self.storeError(error)))
                        case .success(let reply):
                            if let count = reply.integer, count >= 0 {
                                // Full: the app's count as the script saw it, in SQLite mode's words.
                                client.send(RedisCommand(["DEL", key], idempotent: true)) { _ in }
                                let error =
                                    BroadcastChannel.checkCapacity(existingChannels: Int(count))
                                    ?? APNsError(.cannotCreateChannelConfig, "the app has too many channels")
                                return completion(.success(.failure(error)))
                            }
                            sendInOrder(waitForReplicas(of: [key, appKey]), on: client) { waited in
                                completion(waited.map { .success(channel) })
                            }
                        }
                    }
                }
            }
        }
    }

    /// Answers `query` over an emulator holding channel `id` (read only).
    func readChannel<T: Sendable>(
        _ id: String, on loop: EventLoop, _ query: @escaping @Sendable (DeviceEmulator) -> T,
        completion: @escaping @Sendable (Result<T, StoreError>) -> Void
    ) {
        let client = client(on: loop)
        syncClock(on: client) { [self] synced in
            if case .failure(let error) = synced { return completion(.failure(error)) }
            loadChannel(id, on: client) { [self] loaded in
                completion(
                    loaded.flatMap { record in
                        Result { () throws(StoreError) in query(try channelEmulator(record.channel, now: clock.now())) }
                    })
            }
        }
    }

    /// The ids of `bundleId`'s channels, sorted.
    func channelIDs(
        bundleId: String, on loop: EventLoop, completion: @escaping @Sendable (Result<[String], StoreError>) -> Void
    ) {
        client(on: loop).send(RedisCommand(["SMEMBERS", ClusterKeys.appChannels(bundleId)], idempotent: true)) {
            result in
            completion(
                result.mapError(Self.storeError).map { value in (value.elements ?? []).compactMap(\.string).sorted() })
        }
    }

    /// Deletes channel `id` of `bundleId` as the core decides: its id leaves the app's set, then
    /// `ClusterScripts.deleteChannel` removes its record and subscriber index if no broadcast
    /// changed it meanwhile (else it reruns). Activities subscribed to it keep running.
    func deleteChannel(
        _ id: String, bundleId: String, on loop: EventLoop, attempt: Int = 1,
        completion: @escaping @Sendable (Result<Result<Void, APNsError>, StoreError>) -> Void
    ) {
        let client = client(on: loop)
        syncClock(on: client) { [self] synced in
            if case .failure(let error) = synced { return completion(.failure(error)) }
            loadChannel(id, on: client) { [self] loaded in
                let record: ChannelRecord
                var emulator: DeviceEmulator
                do throws(StoreError) {
                    record = try loaded.get()
                    emulator = try channelEmulator(record.channel, now: clock.now())
                } catch {
                    return completion(.failure(error))
                }
                let deleted = emulator.deleteChannel(id, bundleId: bundleId, at: clock.now())
                guard case .success = deleted else { return completion(.success(deleted)) }
                let appKey = ClusterKeys.appChannels(bundleId)
                sendInOrder([RedisCommand(["SREM", appKey, id], idempotent: true)], on: client) { [self] removed in
                    if case .failure(let error) = removed { return completion(.failure(error)) }
                    client.eval(
                        ClusterScripts.deleteChannel,
                        keys: [ClusterKeys.channel(id), ClusterKeys.channelDevices(id)], arguments: [record.version]
                    ) { [self] result in
                        switch result {
                        case .failure(let error): completion(.failure(Self.storeError(error)))
                        case .success(let reply) where reply.string == "ok":
                            sendInOrder(waitForReplicas(of: [ClusterKeys.channel(id), appKey]), on: client) { waited in
                                completion(waited.map { .success(()) })
                            }
                        case .success:
                            guard attempt < Self.maxAttempts else {
                                return completion(.failure(Self.channelBusy(id, attempts: attempt)))
                            }
                            afterLostRace(attempt, on: loop) { [self] in
                                deleteChannel(
                                    id, bundleId: bundleId, on: loop, attempt: attempt + 1, completion: completion)
                            }
                        }
                    }
                }
            }
        }
    }

    /// Runs `rerun` after a pause of 0–`attempt` ms: nodes racing for one channel fall out of step.
    func afterLostRace(_ attempt: Int, on loop: EventLoop, _ rerun: @escaping @Sendable () -> Void) {
        _ = loop.schedule(after: Double.random(in: 0...Double(attempt)) / 1000, rerun)
    }

    /// The failure of a channel command that lost `attempts` races in a row.
    static func channelBusy(_ id: String, attempts: Int) -> StoreError {
        StoreError(operation: "commit", code: 0, message: "channel \(id) changed under \(attempts) attempts in a row")
    }
}
