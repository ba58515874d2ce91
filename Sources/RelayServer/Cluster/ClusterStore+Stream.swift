import RelayCore
import RelayHTTP
import RelayJSON
import RelayNet
import RelayRedis
import RelayStore

// MARK: - The event stream from Redis

extension ClusterStore {
    /// The stream reader of `loop`, made on first use.
    func reader(on loop: EventLoop) -> RedisStreamReader {
        readers.withLock { readers in
            if let reader = readers[ObjectIdentifier(loop)] { return reader }
            let reader = RedisStreamReader(options: clientOptions, loop: loop)
            readers[ObjectIdentifier(loop)] = reader
            return reader
        }
    }

    /// Serves `stream` the events of device `device` from its Redis Stream, which every node's
    /// commits append to: after event `lastEventID` when resuming (after a `snapshot` event when
    /// the stream no longer holds what followed it), else after a `snapshot` event
    /// of the device's state when `snapshot` is set, otherwise from now. An event's id is its
    /// number in the device's own sequence, so ids only increase and `Last-Event-ID` resumes on
    /// any node.
    func subscribe(
        _ stream: ResponseStream, device: String, filter: EventFilter, after lastEventID: UInt64?, snapshot: Bool,
        preamble: [UInt8]
    ) {
        let loop = stream.loop
        loop.execute { [self] in
            stream.sendOnLoop(preamble)
            let key = ClusterKeys.events(device)
            let follow: @Sendable (UInt64) -> Void = { [self] after in
                self.follow(key, after: after, into: stream, filter: filter)
            }
            // The state and the number of its last event come from one load, so the events that
            // follow the snapshot are exactly those after it.
            let clock = clock
            let takeSnapshot: @Sendable () -> Void = { [self] in
                read(
                    in: .device(device), on: loop,
                    { emulator in StreamSnapshot.of(emulator, filter: filter, clock: clock.json) },
                    completion: { outcome in
                        switch outcome {
                        case .failure(let error):
                            RelayLog.error("stream.snapshot", ["device": device, "error": error.description])
                            stream.finish()
                        case .success(let taken):
                            Self.sendSnapshot(taken.members, at: taken.seq, to: stream)
                            follow(taken.seq)
                        }
                    })
            }
            if let lastEventID {
                return isBehind(key, after: lastEventID, on: loop) { behind in
                    behind ? takeSnapshot() : follow(lastEventID)
                }
            }
            if snapshot { return takeSnapshot() }
            // From now: after the device's last event so far.
            let client = client(on: loop)
            client.send(RedisCommand(["HGET", ClusterKeys.device(device), "seq"], idempotent: true)) { result in
                let next = (try? result.get())?.integer.flatMap { UInt64(exactly: $0) } ?? 1
                follow(max(next, 1) - 1)
            }
        }
    }

    /// Whether a subscriber resuming after entry `0-<after>` of `key` is further behind than the
    /// stream keeps (its oldest entry is past the next one): it then gets a `snapshot` event, as
    /// on one node, rather than a silent gap.
    func isBehind(_ key: String, after: UInt64, on loop: EventLoop, completion: @escaping @Sendable (Bool) -> Void) {
        client(on: loop).send(RedisCommand(["XRANGE", key, "-", "+", "COUNT", "1"], idempotent: true)) { result in
            let oldest = (try? result.get()).flatMap { try? StreamReply.entries($0, maxEntries: 1).first }
            completion(oldest.map { $0.id.sequence > after + 1 } ?? false)
        }
    }

    /// Sends `stream` the entries of the Redis Stream `key` after entry `0-<after>` that `filter`
    /// lets through, as they are appended, until the stream ends.
    func follow(_ key: String, after: UInt64, into stream: ResponseStream, filter: EventFilter) {
        guard !stream.isEnded else { return }
        let loop = stream.loop
        let reader = reader(on: loop)
        let watch = reader.watch(key, after: StreamID(milliseconds: 0, sequence: after)) { entries in
            guard !stream.isEnded else { return }
            var bytes: [UInt8] = []
            for entry in entries {
                if let encoded = Self.sse(entry, filter: filter) { bytes += encoded }
            }
            if !bytes.isEmpty { stream.sendOnLoop(bytes) }
        }
        // Counted once it follows its stream, so an event committed after the count shows reaches it.
        subscribers.add(1, ordering: .relaxed)
        stream.onEnd { [self] _ in
            subscribers.subtract(1, ordering: .relaxed)
            loop.execute { reader.unwatch(watch) }
        }
    }

    /// Sends the `snapshot` event of `members`, whose id is `seq` (the last event it includes).
    static func sendSnapshot(_ members: JSONObject, at seq: UInt64, to stream: ResponseStream) {
        var members = members
        members["seq"] = .int(Int64(clamping: seq))
        members["type"] = .string(RelayEventType.snapshot.rawValue)
        stream.sendOnLoop(
            SSEEncoder.encode(
                id: String(seq), event: RelayEventType.snapshot.rawValue, data: JSONValue.object(members).serialized()))
    }

    /// The SSE bytes of a stored event if `filter` lets it through (the device is the stream's).
    static func sse(_ entry: StreamEntry, filter: EventFilter) -> [UInt8]? {
        guard let type = entry.value(of: "t").map({ String(decoding: $0, as: UTF8.self) }),
            let data = entry.value(of: "d")
        else { return nil }
        if let types = filter.types, !types.contains(where: { $0.rawValue == type }) { return nil }
        let members: [(String?, String)] = [(filter.bundleId, "b"), (filter.activityId, "a"), (filter.alarmId, "l")]
        for (wanted, field) in members {
            guard let wanted else { continue }
            guard let stored = entry.value(of: field), stored == Array(wanted.utf8) else { return nil }
        }
        return SSEEncoder.encode(id: String(entry.id.sequence), event: type, data: data)
    }
}

// MARK: - The push log of one token

extension ClusterStore {
    /// The push records of `token`, newest first, that match `filter` (at most `limit`): from
    /// the list of the device the token belongs to, or, for a token no device issued, from the
    /// records of refused pushes.
    func pushes(
        token: String, filter: PushFilter, limit: Int, on loop: EventLoop,
        completion: @escaping @Sendable (Result<[JSONValue], StoreError>) -> Void
    ) {
        let client = client(on: loop)
        resolve(.token(token), on: client) { [self] resolved in
            let key: String
            switch resolved {
            case .failure(let error): return completion(.failure(error))
            case .success(let device?): key = ClusterKeys.pushes(device)
            case .success(nil): key = ClusterKeys.orphanPushes
            }
            let range = RedisCommand(
                ["LRANGE", key, "0", String(max(1, retention.pushes) - 1)], idempotent: true)
            client.send(range) { result in
                switch result {
                case .failure(let error): completion(.failure(Self.storeError(error)))
                case .success(let value):
                    var items: [JSONValue] = []
                    for element in value.elements ?? [] {
                        guard items.count < limit, case .bulkString(let bytes) = element,
                            let record = try? JSONValue(parsing: bytes), Self.matches(record, filter)
                        else { continue }
                        items.append(record)
                    }
                    completion(.success(items))
                }
            }
        }
    }

    /// Whether a stored push record passes `filter` (every field it sets must be equal).
    static func matches(_ record: JSONValue, _ filter: PushFilter) -> Bool {
        let wanted: [(String?, String)] = [
            (filter.token, "token"), (filter.apnsId, "apnsId"), (filter.uniqueId, "uniqueId"),
            (filter.bundleId, "bundleId"), (filter.channelId, "channelId"),
        ]
        return wanted.allSatisfy { value, key in value == nil || record[key]?.stringValue == value }
    }
}
