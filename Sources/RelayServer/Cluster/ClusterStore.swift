import RelayCore
import RelayJSON
import RelayNet
import RelayRedis
import RelayStore
import Synchronization

/// Which device a command works on, as a route knows it before the command runs.
package enum StateScope: Sendable {
    /// The device with this id.
    case device(String)
    /// The device that issued this update or push-to-start token (lowercase hex).
    case token(String)
    /// The device of this activity.
    case activity(String)
    /// The device of this alarm.
    case alarm(String)
    /// No device yet: the command creates one, or names none (a push refused before its token
    /// was read). What it writes decides the device.
    case none
}

/// The fleet in a Redis Cluster: one device's state in one hash slot, loaded for each command
/// and committed by one script when the device's version is unchanged (optimistic concurrency;
/// on a conflict the command reruns on the new state). Any node serves any device; nodes keep
/// nothing of the fleet between commands.
///
/// Loop-confined work: each event loop has its own `RedisClusterClient`, and a command runs from
/// load to commit on the loop that received its request.
final class ClusterStore: Sendable {
    let settings: ClusterSettings
    let rules: RelayRules
    let ids: any IdentifierGenerator
    let clock: RelayTimeSource
    let retention: RelayService.Retention
    private let clients = Mutex<[ObjectIdentifier: RedisClusterClient]>([:])
    /// Commands waiting for their devices, node-wide: one batch per device runs at a time, on the
    /// loop that started it, so the node's own commands for a device never race each other.
    private let deviceQueues = Mutex(DeviceQueues())
    let readers = Mutex<[ObjectIdentifier: RedisStreamReader]>([:])
    /// Index keys (token, activity, alarm) → the device they were found to belong to. An index
    /// entry never changes once written (a token, activity or alarm stays on its device), so a
    /// push to a known token skips the lookup. Emptied when it reaches `maxRememberedOwners`.
    private let owners = Mutex<[String: String]>([:])
    /// Most index entries a node remembers.
    static let maxRememberedOwners = 200_000
    /// True while the ticker's sweep of due transitions runs (one at a time per node).
    let sweeping = Atomic<Bool>(false)
    /// Streams this node serves from Redis, once each follows its stream.
    let subscribers = Atomic<Int>(0)

    /// Most times a command reruns after losing a race for its device before it fails.
    static let maxAttempts = 16
    /// Most commands for one device run and committed together.
    static let maxBatch = 256

    /// Throws when `settings.caFile` cannot be read as a CA file.
    init(
        settings: ClusterSettings, rules: RelayRules, ids: any IdentifierGenerator, clock: RelayTimeSource,
        retention: RelayService.Retention
    ) throws {
        var options = RedisClusterClient.Options(seeds: settings.seeds)
        options.user = settings.user
        options.password = settings.password
        if let caFile = settings.caFile {
            do {
                options.tls = try TLSClientContext(caFile: caFile)
            } catch {
                throw StoreError(
                    operation: "cluster", code: 0, message: "store.redisCluster.caFile \(caFile): \(error)")
            }
            options.tlsServerName = settings.serverName
        }
        clientOptions = options
        self.settings = settings
        self.rules = rules
        self.ids = ids
        self.clock = clock
        self.retention = retention
    }

    /// How the clients and stream readers reach the cluster.
    let clientOptions: RedisClusterClient.Options

    /// The client of `loop`, made on first use.
    func client(on loop: EventLoop) -> RedisClusterClient {
        clients.withLock { clients in
            if let client = clients[ObjectIdentifier(loop)] { return client }
            let client = RedisClusterClient(options: clientOptions, loop: loop)
            clients[ObjectIdentifier(loop)] = client
            return client
        }
    }

    /// Closes every client (each on its loop).
    func shutdown() {
        for client in clients.withLock({ Array($0.values) }) {
            client.loop.execute { client.shutdown() }
        }
        for reader in readers.withLock({ Array($0.values) }) {
            reader.loop.execute { reader.shutdown() }
        }
    }

    // MARK: - Loading

    /// A device as stored: its documents, burst limiters, version and next event number.
    struct DeviceRecord {
        var id: String?
        var version: Int64 = 0
        var nextSeq: UInt64 = 1
        var documents: [(kind: DocumentKind, body: JSONValue)] = []
        /// The hash fields of `documents` (`doc:<kind>:<id>`): a document written under another
        /// field is new, and goes into its index.
        var documentFields: Set<String> = []
        var bursts: [(token: String, bucket: TokenBucket)] = []
    }

    /// The device `scope` names (nil: none, or an unknown token or activity).
    func resolve(
        _ scope: StateScope, on client: RedisClusterClient,
        completion: @escaping (Result<String?, StoreError>) -> Void
    ) {
        let key: String
        switch scope {
        case .device(let id): return completion(.success(id))
        case .none: return completion(.success(nil))
        case .token(let token): key = ClusterKeys.token(token)
        case .activity(let id): key = ClusterKeys.activity(id)
        case .alarm(let id): key = ClusterKeys.alarm(id)
        }
        if let device = owners.withLock({ $0[key] }) { return completion(.success(device)) }
        client.send(RedisCommand(["GET", key], idempotent: true)) { [self] result in
            if case .success(let value) = result, let device = value.string {
                self.owners.withLock { owners in
                    if owners.count >= Self.maxRememberedOwners { owners.removeAll(keepingCapacity: true) }
                    owners[key] = device
                }
            }
            completion(result.map { $0.string }.mapError(Self.storeError))
        }
    }

    /// Loads device `id` (an empty record when Redis has none).
    func load(
        _ id: String, on client: RedisClusterClient, completion: @escaping (Result<DeviceRecord, StoreError>) -> Void
    ) {
        client.send(RedisCommand(["HGETALL", ClusterKeys.device(id)], idempotent: true)) { result in
            switch result {
            case .failure(let error): completion(.failure(Self.storeError(error)))
            case .success(let value):
                completion(Result { () throws(StoreError) -> DeviceRecord in try Self.record(id, from: value) })
            }
        }
    }

    /// Parses an `HGETALL` reply.
    static func record(_ id: String, from value: RESPValue) throws(StoreError) -> DeviceRecord {
        guard let pairs = value.pairs else { throw StoreError(operation: "load", code: 0, message: "not a hash") }
        var record = DeviceRecord(id: id)
        for pair in pairs {
            guard let field = pair.key.string, case .bulkString(let bytes) = pair.value else { continue }
            func unreadable(_ why: String) -> StoreError {
                StoreError(operation: "load", code: 0, message: "device \(id), field \(field): \(why)")
            }
            if field == "v" {
                guard let version = Int64(String(decoding: bytes, as: UTF8.self)) else {
                    throw unreadable("not a number")
                }
                record.version = version
            } else if field == "seq" {
                guard let seq = UInt64(String(decoding: bytes, as: UTF8.self)) else { throw unreadable("not a number") }
                record.nextSeq = seq
            } else if field.hasPrefix("doc:") {
                let rest = field.dropFirst(4)
                guard let colon = rest.firstIndex(of: ":"), let kind = DocumentKind(rawValue: String(rest[..<colon]))
                else { throw unreadable("unknown document kind") }
                do {
                    record.documents.append((kind, try JSONValue(parsing: bytes)))
                    record.documentFields.insert(field)
                } catch {
                    throw unreadable("\(error)")
                }
            } else if field.hasPrefix("burst:") {
                do {
                    record.bursts.append((String(field.dropFirst(6)), try TokenBucket(json: JSONValue(parsing: bytes))))
                } catch {
                    throw unreadable("\(error)")
                }
            }
        }
        return record
    }

    /// The emulator holding just `record`'s device at `now`.
    func emulator(for record: DeviceRecord, now: UnixSeconds) throws(StoreError) -> DeviceEmulator {
        var emulator: DeviceEmulator
        do {
            emulator = try DeviceEmulator.restore(
                rules: rules, ids: ids, now: now, nextSeq: record.nextSeq, documents: record.documents)
        } catch {
            throw StoreError(
                operation: "load", code: 0, message: "device \(record.id ?? "-") cannot be restored: \(error)")
        }
        for burst in record.bursts { emulator.restoreBurst(token: burst.token, bucket: burst.bucket) }
        return emulator
    }

    // MARK: - Committing

    /// What a commit needs besides the effects: the device and what it was when loaded.
    struct Loaded {
        var record: DeviceRecord
        /// Each token's burst bucket as loaded: only those a command changed are written back.
        var bursts: [String: TokenBucket]
        var deadline: UnixSeconds?
    }

    /// Why a commit did not happen.
    enum CommitFailure: Error {
        case conflict
        case failed(StoreError)
    }

    /// Commits `effects` of a command run on `loaded`'s device, then records the new tokens and
    /// activities in their indexes, the device's next deadline, and waits for `replicas`.
    func commit(
        _ effects: EmulatorEffects, emulator: inout DeviceEmulator, loaded: Loaded, on client: RedisClusterClient,
        completion: @escaping (Result<Void, CommitFailure>) -> Void
    ) {
        let serialized = effects.serialized()
        let device: String
        switch Self.device(of: effects, loaded: loaded.record.id) {
        case .success(let id?): device = id
        case .success(nil):
            // Nothing belongs to a device: a refused push's record goes to the orphan log, and
            // its event to the fleet feed.
            return logUnowned(effects, serialized: serialized, on: client) { outcome in
                completion(outcome.mapError { .failed($0) })
            }
        case .failure(let error): return completion(.failure(.failed(error)))
        }
        var sets: [String] = []
        var deletes: [String] = []
        // Documents new to the device: their ids go into the indexes after the commit.
        var created: [DocumentWrite] = []
        for (document, body) in zip(effects.documents, serialized.documents) {
            let field = ClusterKeys.documentField(kind: document.kind.rawValue, id: document.id)
            if let body {
                sets += [field, String(decoding: body, as: UTF8.self)]
                if !loaded.record.documentFields.contains(field) { created.append(document) }
            } else {
                deletes.append(field)
            }
        }
        let bursts = emulator.tokenBursts
        for burst in bursts where loaded.bursts[burst.token] != burst.bucket {
            sets += [
                ClusterKeys.burstField(burst.token), String(decoding: burst.bucket.json.serialized(), as: UTF8.self),
            ]
        }
        var eventArguments: [String] = []
        var feedEvents: [FeedEvent] = []
        for (event, data) in zip(effects.events, serialized.events) {
            let fed = FeedEvent(event, data: data, device: device)
            eventArguments += ["0-\(event.seq)", fed.type, fed.data, fed.bundleId, fed.activityId, fed.alarmId]
            feedEvents.append(fed)
        }
        let records = serialized.pushRecords.map { String(decoding: $0, as: UTF8.self) }
        var arguments = [
            String(loaded.record.version), String(emulator.nextSeq), String(sets.count / 2), String(deletes.count),
            String(effects.events.count), String(records.count), String(max(1, retention.pushes)),
            String(max(1, retention.events)),
        ]
        arguments += sets
        arguments += deletes
        arguments += eventArguments
        arguments += records
        let newTokens = bursts.map(\.token).filter { loaded.bursts[$0] == nil }
        let deadline = emulator.nextDeadline()
        client.eval(
            ClusterScripts.commit,
            keys: [ClusterKeys.device(device), ClusterKeys.events(device), ClusterKeys.pushes(device)],
            arguments: arguments
        ) { [self] result in
            switch result {
            case .failure(let error):
                completion(.failure(.failed(Self.storeError(error))))
            case .success(let reply):
                guard let parts = reply.elements, let status = parts.first?.string else {
                    return completion(
                        .failure(.failed(StoreError(operation: "commit", code: 0, message: "unexpected reply"))))
                }
                guard status == "ok" else { return completion(.failure(.conflict)) }
                // The indexes live in other slots: written after the commit, each idempotent. A
                // token whose index is missing (a crash in between) reads as unknown, never as
                // another device's.
                var follow: [RedisCommand] = []
                for token in newTokens {
                    follow.append(RedisCommand(["SET", ClusterKeys.token(token), device], idempotent: true))
                }
                for document in created {
                    follow += Self.indexWrites(of: document, device: device)
                }
                if deadline != loaded.deadline {
                    follow.append(
                        deadline.map { RedisCommand(["ZADD", ClusterKeys.due, String($0), device], idempotent: true) }
                            ?? RedisCommand(["ZREM", ClusterKeys.due, device], idempotent: true))
                }
                follow += waitForReplicas(of: [ClusterKeys.device(device)])
                // The feed goes out with the follow-ups; the answer waits for both.
                let both = LoopCollector<Void>(2)
                let joined: (Result<Void, StoreError>) -> Void = { outcome in
                    if both.record(outcome) { completion(both.failure.map { .failure(.failed($0)) } ?? .success(())) }
                }
                sendAll(follow, on: client, completion: joined)
                feed(feedEvents, on: client, completion: joined)
            }
        }
    }

    /// The index entries a new document of `device` needs: an activity's or alarm's id, or a new
    /// device in the device set with its key's hash.
    static func indexWrites(of document: DocumentWrite, device: String) -> [RedisCommand] {
        switch document.kind {
        case .activity: return [RedisCommand(["SET", ClusterKeys.activity(document.id), device], idempotent: true)]
        case .alarm: return [RedisCommand(["SET", ClusterKeys.alarm(document.id), device], idempotent: true)]
        case .device:
            var writes = [RedisCommand(["SADD", ClusterKeys.devices, device], idempotent: true)]
            if let keyHash = document.body?["keyHash"]?.stringValue {
                writes.append(RedisCommand(["SET", ClusterKeys.deviceKey(keyHash), device], idempotent: true))
            }
            return writes
        case .channel: return []
        }
    }

    /// Sends `commands` together and completes when all answered; a `WAIT` short of its
    /// replicas fails the whole.
    private func sendAll(
        _ commands: [RedisCommand], on client: RedisClusterClient,
        completion: @escaping (Result<Void, StoreError>) -> Void
    ) {
        guard !commands.isEmpty else { return completion(.success(())) }
        let answers = LoopCollector<Void>(commands.count)
        for command in commands {
            client.send(command) { [self] result in
                if answers.record(checked(command, result)) {
                    completion(answers.failure.map { .failure($0) } ?? .success(()))
                }
            }
        }
    }

    /// The outcome of `command`: its error, or for a `WAIT`, a count short of the replicas asked.
    func checked(_ command: RedisCommand, _ result: Result<RESPValue, RedisError>) -> Result<Void, StoreError> {
        switch result {
        case .failure(let error): return .failure(Self.storeError(error))
        case .success(let value):
            let replicas = settings.replicas
            if command.arguments.first == Array("WAIT".utf8), let count = value.integer, count < Int64(replicas) {
                return .failure(
                    StoreError(
                        operation: "wait", code: 0,
                        message: "the commit reached \(count) of \(replicas) replicas in time"))
            }
            return .success(())
        }
    }

    /// The one device `effects` belong to: the loaded one, or the one the command created.
    static func device(of effects: EmulatorEffects, loaded: String?) -> Result<String?, StoreError> {
        var found = loaded
        for document in effects.documents {
            let owner = document.kind == .device ? document.id : document.deviceId
            guard let owner else {
                return .failure(
                    StoreError(
                        operation: "commit", code: 0,
                        message:
                            "a \(document.kind.rawValue) document belongs to no device; cluster mode keeps only devices' state"
                    ))
            }
            if found == nil { found = owner }
            if found != owner {
                return .failure(
                    StoreError(
                        operation: "commit", code: 0, message: "one command changed two devices (\(found!), \(owner))"))
            }
        }
        for event in effects.events {
            if let owner = event.deviceId, found == nil { found = owner }
        }
        return .success(found)
    }

    static func storeError(_ error: RedisError) -> StoreError {
        StoreError(operation: "redis", code: 0, message: "\(error)")
    }
}

// MARK: - Running commands

extension ClusterStore {
    /// Loads the device `scope` names, runs `command` on it at the cluster's time, commits what
    /// it changed and calls `completion` on `loop`; reruns on a lost race for the device.
    func perform<T: Sendable>(
        in scope: StateScope, on loop: EventLoop,
        _ command: @escaping @Sendable (inout DeviceEmulator, UnixSeconds) -> T,
        completion: @escaping @Sendable (Result<T, StoreError>) -> Void
    ) {
        let client = client(on: loop)
        // Each command finishes on the loop that received it, whichever loop ran its batch.
        let finish: @Sendable (Result<T, StoreError>) -> Void = { outcome in
            if loop.inLoop { completion(outcome) } else { loop.execute { completion(outcome) } }
        }
        let job = DeviceJob(
            run: { emulator, now in
                let result = command(&emulator, now)
                return { outcome in finish(outcome.map { result }) }
            },
            fail: { error in finish(.failure(error)) })
        resolve(scope, on: client) { [self] resolved in
            switch resolved {
            case .failure(let error): completion(.failure(error))
            case .success(nil): run([job], device: nil, attempt: 1, on: client) {}
            case .success(let device?):
                let start = deviceQueues.withLock { queues in
                    queues.waiting[device, default: []].append(job)
                    return queues.running.insert(device).inserted
                }
                if start { drain(device, on: client) }
            }
        }
    }

    /// Runs the commands waiting for `device` as one batch (one load, one commit), then the next
    /// batch, until none wait. Only other nodes' commits can conflict with a batch.
    private func drain(_ device: String, on client: RedisClusterClient) {
        let jobs: [DeviceJob]? = deviceQueues.withLock { queues in
            guard var jobs = queues.waiting.removeValue(forKey: device), !jobs.isEmpty else {
                queues.running.remove(device)
                return nil
            }
            if jobs.count > Self.maxBatch {
                queues.waiting[device] = Array(jobs[Self.maxBatch...])
                jobs = Array(jobs[..<Self.maxBatch])
            }
            return jobs
        }
        guard let jobs else { return }
        run(jobs, device: device, attempt: 1, on: client) { [self] in
            drain(device, on: client)
        }
    }

    /// Loads `device`, runs `jobs` in order on it, commits their effects together and finishes
    /// each job; on a lost race, loads again and reruns them all. Calls `next` at the end.
    private func run(
        _ jobs: [DeviceJob], device: String?, attempt number: Int, on client: RedisClusterClient,
        next: @escaping () -> Void
    ) {
        withDevice(device, on: client) { [self] loadedResult in
            let loaded: Loaded
            var emulator: DeviceEmulator
            switch loadedResult {
            case .failure(let error):
                for job in jobs { job.fail(error) }
                return next()
            case .success(let made):
                emulator = made.emulator
                loaded = made.loaded
            }
            let now = clock.now()
            let finishers = jobs.map { $0.run(&emulator, now) }
            let effects = emulator.takeEffects()
            guard !effects.isEmpty else {
                for finish in finishers { finish(.success(())) }
                return next()
            }
            commit(effects, emulator: &emulator, loaded: loaded, on: client) { [self] outcome in
                switch outcome {
                case .success:
                    for finish in finishers { finish(.success(())) }
                    next()
                case .failure(.failed(let error)):
                    for finish in finishers { finish(.failure(error)) }
                    next()
                case .failure(.conflict):
                    guard number < Self.maxAttempts else {
                        let error = StoreError(
                            operation: "commit", code: 0,
                            message: "device \(device ?? "-") changed under \(number) attempts in a row")
                        for finish in finishers { finish(.failure(error)) }
                        return next()
                    }
                    // Another node won the race: load its commit and run the batch again, after a
                    // pause that grows with the losses, so racing nodes fall out of step.
                    let pause = Double.random(in: 0...Double(number)) / 1000
                    _ = client.loop.schedule(after: pause) { [self] in
                        run(jobs, device: device, attempt: number + 1, on: client, next: next)
                    }
                }
            }
        }
    }

    /// Loads the device `scope` names and answers `query` over it (nothing is committed).
    func read<T: Sendable>(
        in scope: StateScope, on loop: EventLoop, _ query: @escaping @Sendable (DeviceEmulator) -> T,
        completion: @escaping @Sendable (Result<T, StoreError>) -> Void
    ) {
        let client = client(on: loop)
        resolve(scope, on: client) { [self] resolved in
            switch resolved {
            case .failure(let error): completion(.failure(error))
            case .success(let device):
                withDevice(device, on: client) { loaded in
                    completion(loaded.map { query($0.emulator) })
                }
            }
        }
    }

    /// The device loaded into an emulator at the cluster's time.
    private func withDevice(
        _ device: String?, on client: RedisClusterClient,
        _ body: @escaping (Result<(emulator: DeviceEmulator, loaded: Loaded), StoreError>) -> Void
    ) {
        syncClock(on: client) { [self] clockResult in
            if case .failure(let error) = clockResult { return body(.failure(error)) }
            let now = clock.now()
            let made: (DeviceRecord) -> Result<(emulator: DeviceEmulator, loaded: Loaded), StoreError> = { record in
                Result { () throws(StoreError) in
                    var emulator = try self.emulator(for: record, now: now)
                    let loaded = Loaded(
                        record: record,
                        bursts: Dictionary(emulator.tokenBursts.map { ($0.token, $0.bucket) }) { first, _ in first },
                        deadline: emulator.nextDeadline())
                    return (emulator, loaded)
                }
            }
            guard let device else { return body(made(DeviceRecord())) }
            load(device, on: client) { result in
                switch result {
                case .failure(let error): body(.failure(error))
                case .success(let record): body(made(record))
                }
            }
        }
    }
}

/// One command waiting for its device: `run` applies it to the loaded emulator and returns what
/// finishes it once the batch's commit is known (it may run again after a lost race).
struct DeviceJob: Sendable {
    let run: @Sendable (inout DeviceEmulator, UnixSeconds) -> @Sendable (Result<Void, StoreError>) -> Void
    /// Fails the job without running it (its device could not be loaded).
    let fail: @Sendable (StoreError) -> Void
}

/// The commands waiting for their devices, and the devices with a batch running.
struct DeviceQueues: Sendable {
    var waiting: [String: [DeviceJob]] = [:]
    var running: Set<String> = []
}
