import RelayCore
import RelayJSON
import RelayNet
import RelayRedis
import RelayStore

// MARK: - Broadcasts

extension ClusterStore {
    /// Most subscribed devices a broadcast updates at once from one node.
    static let broadcastWindow = 64

    /// A validated broadcast, cluster-wide, in the core's three steps:
    ///
    /// 1. on the channel: `storeBroadcast` decides; `ClusterScripts.broadcast` commits the
    ///    policy-1 message if the channel is unchanged since it was read (else the step reruns)
    ///    and, in the same script, prunes and reads the channel's subscribed devices;
    /// 2. on each subscribed device: `applyBroadcast(_:toSubscribersOf:)` through the device's
    ///    own batch and commit (`perform(in: .device)`), at most `broadcastWindow` at a time;
    /// 3. the record (`finishBroadcast`) in the log of pushes that name no device, `{relay}:log`,
    ///    and its `push.received` event in the fleet feed (`recordUnowned`).
    ///
    /// `completion` comes after all three committed, so a `200` means every subscribed device was
    /// updated, as in SQLite mode; a failed device commit fails the broadcast (`500`), the
    /// message stays stored and the devices that committed keep it.
    func broadcast(
        _ push: BroadcastPushRequest, context: PushContext, on loop: EventLoop, attempt: Int = 1,
        completion: @escaping @Sendable (Result<PushResult, StoreError>) -> Void
    ) {
        let client = client(on: loop)
        let id = push.channelID.rawValue
        syncClock(on: client) { [self] synced in
            if case .failure(let error) = synced { return completion(.failure(error)) }
            loadChannel(id, on: client) { [self] loaded in
                let now = clock.now()
                let record: ChannelRecord
                var emulator: DeviceEmulator
                do throws(StoreError) {
                    record = try loaded.get()
                    emulator = try channelEmulator(record.channel, now: now)
                } catch {
                    return completion(.failure(error))
                }
                var hints = push.hintNotes
                let stored = emulator.storeBroadcast(push, hints: &hints, at: now)
                let finish: @Sendable (Result<BroadcastDelivery?, APNsError>) -> Void = { [self, hints] outcome in
                    recordUnowned(on: loop, completion: completion) { emulator, _ in
                        emulator.finishBroadcast(push, context: context, outcome: outcome, hints: hints, at: now)
                    }
                }
                let message: StoredBroadcast
                switch stored {
                case .failure(let error): return finish(.failure(error))
                case .success(nil): return finish(.success(nil))
                case .success(let kept?): message = kept
                }
                let doc = Self.channelWrite(emulator.takeEffects())
                client.eval(
                    ClusterScripts.broadcast, keys: [ClusterKeys.channel(id), ClusterKeys.channelDevices(id)],
                    arguments: [record.version, doc ?? "", String(now)]
                ) { [self] result in
                    let parts: [RESPValue]
                    switch result {
                    case .failure(let error): return completion(.failure(Self.storeError(error)))
                    case .success(let reply): parts = reply.elements ?? []
                    }
                    guard parts.first?.string == "ok" else {
                        guard attempt < Self.maxAttempts else {
                            return completion(.failure(Self.channelBusy(id, attempts: attempt)))
                        }
                        return afterLostRace(attempt, on: loop) { [self] in
                            broadcast(push, context: context, on: loop, attempt: attempt + 1, completion: completion)
                        }
                    }
                    let devices = parts.dropFirst().compactMap(\.string)
                    let waits = doc == nil ? [] : waitForReplicas(of: [ClusterKeys.channel(id)])
                    sendInOrder(waits, on: client) { [self] waited in
                        if case .failure(let error) = waited { return completion(.failure(error)) }
                        let fanout = BroadcastFanout(devices: devices) { delivered in
                            switch delivered {
                            case .failure(let error): completion(.failure(error))
                            case .success(let delivery): finish(.success(delivery))
                            }
                        }
                        fanout.start(window: Self.broadcastWindow) { [self] device, done in
                            perform(
                                in: .device(device), on: loop,
                                { emulator, now in
                                    emulator.applyBroadcast(
                                        message, toSubscribersOf: id, priority: push.priority.rawValue, at: now)
                                }, completion: done)
                        }
                    }
                }
            }
        }
    }
}

extension ClusterStore {
    /// Runs `record` (a push record that names no device: a broadcast's, or a refusal before
    /// any device was read) on an empty emulator at the cluster's time, appends its records to
    /// `{relay}:log` and its events to the fleet feed, as SQLite mode logs and streams them.
    func recordUnowned(
        on loop: EventLoop, completion: @escaping @Sendable (Result<PushResult, StoreError>) -> Void,
        _ record: @escaping @Sendable (inout DeviceEmulator, UnixSeconds) -> PushResult
    ) {
        let client = client(on: loop)
        syncClock(on: client) { [self] synced in
            if case .failure(let error) = synced { return completion(.failure(error)) }
            recordUnowned(at: clock.now(), on: client, completion: completion, record)
        }
    }

    private func recordUnowned(
        at now: UnixSeconds, on client: RedisClusterClient,
        completion: @escaping @Sendable (Result<PushResult, StoreError>) -> Void,
        _ record: (inout DeviceEmulator, UnixSeconds) -> PushResult
    ) {
        var emulator: DeviceEmulator
        do throws(StoreError) {
            emulator = try channelEmulator(nil, now: now)
        } catch {
            return completion(.failure(error))
        }
        let result = record(&emulator, now)
        let effects = emulator.takeEffects()
        logUnowned(effects, serialized: effects.serialized(), on: client) { outcome in
            completion(outcome.map { result })
        }
    }

    /// Writes what a command that names no device did: its push records to `{relay}:log` (then,
    /// with `durability.replicas`, waits for them), then its events to the fleet feed.
    func logUnowned(
        _ effects: EmulatorEffects, serialized: SerializedEffects, on client: RedisClusterClient,
        completion: @escaping (Result<Void, StoreError>) -> Void
    ) {
        let records = serialized.pushRecords.map { String(decoding: $0, as: UTF8.self) }
        let fed = zip(effects.events, serialized.events).map { FeedEvent($0, data: $1) }
        var writes: [RedisCommand] = []
        if !records.isEmpty {
            writes.append(RedisCommand(["LPUSH", ClusterKeys.orphanPushes] + records))
            writes.append(
                RedisCommand(
                    ["LTRIM", ClusterKeys.orphanPushes, "0", String(max(1, retention.pushes) - 1)], idempotent: true))
            writes += waitForReplicas(of: [ClusterKeys.orphanPushes])
        }
        sendInOrder(writes, on: client) { [self] written in
            if case .failure(let error) = written { return completion(.failure(error)) }
            feed(fed, on: client, completion: completion)
        }
    }
}

/// The per-device steps of one broadcast, at most `window` running at once; sums their
/// deliveries and keeps the first failure. Loop-confined: every `done` runs on the broadcast's loop.
final class BroadcastFanout: @unchecked Sendable {  // Sendable: created and used on one event loop only.
    private let devices: [String]
    private let completion: (Result<BroadcastDelivery, StoreError>) -> Void
    private var next = 0
    private var finished = 0
    private var total = BroadcastDelivery()
    private var failure: StoreError?

    init(devices: [String], completion: @escaping (Result<BroadcastDelivery, StoreError>) -> Void) {
        self.devices = devices
        self.completion = completion
    }

    /// Starts up to `window` devices through `step`, then one more as each finishes.
    func start(
        window: Int,
        step: @escaping @Sendable (String, @escaping @Sendable (Result<BroadcastDelivery, StoreError>) -> Void) -> Void
    ) {
        guard !devices.isEmpty else { return completion(.success(total)) }
        for _ in 0..<min(window, devices.count) { launch(step) }
    }

    private func launch(
        _ step:
            @escaping @Sendable (String, @escaping @Sendable (Result<BroadcastDelivery, StoreError>) -> Void) -> Void
    ) {
        let device = devices[next]
        next += 1
        step(device) { [self] result in
            switch result {
            case .success(let delivery): total = total + delivery
            case .failure(let error): if failure == nil { failure = error }
            }
            finished += 1
            if next < devices.count { launch(step) }
            if finished == devices.count { completion(failure.map { .failure($0) } ?? .success(total)) }
        }
    }
}

// MARK: - Joining a channel

extension ClusterStore {
    /// Runs a device's `command` that may join `channel` (an activity start naming it): the
    /// channel is read and the device entered in its subscriber index in one script
    /// (`ClusterScripts.joinChannel`), before the command, so a node killed after the commit
    /// loses no subscription; the command sees the channel lent to its emulator (existence and
    /// stored message, read only). After the commit the same script sets the entry's exact bound
    /// and reads the channel again: a message that a broadcast stored meanwhile (whose delivery
    /// may have loaded the device before the activity existed) is applied to the activities that
    /// joined, so none misses it (one may get it twice).
    func perform<T: Sendable>(
        in scope: StateScope, joining channel: JoinedChannel, on loop: EventLoop,
        _ command: @escaping @Sendable (inout DeviceEmulator, UnixSeconds) -> T,
        completion: @escaping @Sendable (Result<T, StoreError>) -> Void
    ) {
        let client = client(on: loop)
        guard case .success = BroadcastChannelID.parse(channel.id), channel.bundleId.utf8.count <= 255 else {
            return perform(in: scope, on: loop, command, completion: completion)
        }
        resolve(scope, on: client) { [self] resolved in
            // No device: the command refuses itself without the channel.
            guard case .success(let device?) = resolved else {
                return perform(in: scope, on: loop, command, completion: completion)
            }
            syncClock(on: client) { [self] synced in
                if case .failure(let error) = synced { return completion(.failure(error)) }
                let joinedAt = clock.now()
                join(channel, device: device, until: joinedAt + rules.activeLifetime, on: client) { [self] before in
                    let lent: EmulatedChannel?
                    switch before {
                    case .failure(let error): return completion(.failure(error))
                    case .success(let channel): lent = channel
                    }
                    // The entry reaches the replicas before the start commits (`durability.replicas`).
                    let waits = lent == nil ? [] : waitForReplicas(of: [ClusterKeys.channelDevices(channel.id)])
                    sendInOrder(waits, on: client) { [self] waited in
                        if case .failure(let error) = waited { return completion(.failure(error)) }
                        perform(
                            in: .device(device), on: loop,
                            { emulator, now in
                                if let lent { emulator.lend(lent) }
                                return command(&emulator, now)
                            }
                        ) { [self] outcome in
                            guard case .success = outcome, let lent else { return completion(outcome) }
                            join(channel, device: device, until: clock.now() + rules.activeLifetime, on: client) {
                                [self] after in
                                guard case .success(let latest?) = after, let message = latest.storedMessage,
                                    message != lent.storedMessage, message.expiresAt > clock.now()
                                else { return completion(outcome) }
                                perform(
                                    in: .device(device), on: loop,
                                    { emulator, now in
                                        emulator.applyBroadcast(
                                            message, toSubscribersOf: channel.id, priority: 10, joinedSince: joinedAt,
                                            at: now)
                                    }
                                ) { applied in
                                    if case .failure(let error) = applied {
                                        RelayLog.error(
                                            "cluster.channel.join", ["device": device, "error": error.description])
                                    }
                                    completion(outcome)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// `ClusterScripts.joinChannel`: the channel when it is `bundleId`'s (nil otherwise), after
    /// entering `device` in its subscriber index with at least `until`.
    private func join(
        _ channel: JoinedChannel, device: String, until: UnixSeconds, on client: RedisClusterClient,
        completion: @escaping (Result<EmulatedChannel?, StoreError>) -> Void
    ) {
        client.eval(
            ClusterScripts.joinChannel,
            keys: [ClusterKeys.channel(channel.id), ClusterKeys.channelDevices(channel.id)],
            arguments: [device, String(until), channel.bundleId]
        ) { result in
            switch result {
            case .failure(let error): completion(.failure(Self.storeError(error)))
            case .success(let value):
                guard case .bulkString(let bytes) = value else { return completion(.success(nil)) }
                do {
                    completion(.success(try EmulatedChannel.fromJSON(try JSONValue(parsing: bytes))))
                } catch {
                    completion(
                        .failure(
                            StoreError(
                                operation: "load", code: 0, message: "channel \(channel.id) cannot be read: \(error)")))
                }
            }
        }
    }
}

// MARK: - Scripts

extension ClusterScripts {
    /// Adds a channel id to its app's set unless the app has `cap` channels already.
    /// KEYS: the app's channel set. ARGV: channel id, cap. Returns -1 when added, else the count.
    static let addChannel = RedisScript(
        """
        local count = redis.call('SCARD', KEYS[1])
        if count >= tonumber(ARGV[2]) then return count end
        redis.call('SADD', KEYS[1], ARGV[1])
        return -1
        """)

    /// Deletes a channel and its subscriber index if its version is still the one read.
    /// KEYS: the channel hash, its subscriber index. ARGV: expected version. Returns `ok` or `conflict`.
    static let deleteChannel = RedisScript(
        """
        if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 'conflict' end
        redis.call('DEL', KEYS[1], KEYS[2])
        return 'ok'
        """)

    /// A broadcast's step on its channel: if the channel's version is still the one read, keeps
    /// the new document (policy 1; empty: none) and bumps the version, drops subscriber entries
    /// whose bound is past, and returns `{"ok", device...}`; else `{"conflict"}`.
    /// KEYS: the channel hash, its subscriber index. ARGV: expected version, document, now.
    static let broadcast = RedisScript(
        """
        if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return {'conflict'} end
        if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'doc', ARGV[2], 'v', tonumber(ARGV[1]) + 1) end
        redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[3])
        local devices = redis.call('ZRANGE', KEYS[2], 0, -1)
        table.insert(devices, 1, 'ok')
        return devices
        """)

    /// An activity start's step on the channel it names: when the channel is the app's, enters
    /// the device in the subscriber index (raising its bound to at least `until`, never lowering
    /// it) and returns the channel's document; otherwise nil and nothing written.
    /// KEYS: the channel hash, its subscriber index. ARGV: device, until, bundle id.
    static let joinChannel = RedisScript(
        """
        local doc = redis.call('HGET', KEYS[1], 'doc')
        if not doc or cjson.decode(doc)['bundleId'] ~= ARGV[3] then return false end
        redis.call('ZADD', KEYS[2], 'GT', ARGV[2], ARGV[1])
        return doc
        """)
}
