import RelayCore
import RelayHTTP
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
    /// commits append to: after event `lastEventID` when resuming, otherwise from now. An event's
    /// id is its number in the device's own sequence, so ids only increase and `Last-Event-ID`
    /// resumes on any node.
    func subscribe(
        _ stream: ResponseStream, device: String, filter: EventFilter, after lastEventID: UInt64?, preamble: [UInt8]
    ) {
        let loop = stream.loop
        loop.execute { [self] in
            stream.sendOnLoop(preamble)
            let key = ClusterKeys.events(device)
            let follow: @Sendable (UInt64) -> Void = { [self] after in
                guard !stream.isEnded else { return }
                let reader = reader(on: loop)
                let watch = reader.watch(key, after: StreamID(milliseconds: 0, sequence: after)) { entries in
                    guard !stream.isEnded else { return }
                    var bytes: [UInt8] = []
                    for entry in entries {
                        if let encoded = Self.sse(entry, filter: filter) { bytes += encoded }
                    }
                    if !bytes.isEmpty { stream.sendOnLoop(bytes) }
                }
                stream.onEnd { _ in loop.execute { reader.unwatch(watch) } }
            }
            if let lastEventID { return follow(lastEventID) }
            // From now: after the device's last event so far.
            let client = client(on: loop)
            client.send(RedisCommand(["HGET", ClusterKeys.device(device), "seq"], idempotent: true)) { result in
                let next = (try? result.get())?.integer.flatMap { UInt64(exactly: $0) } ?? 1
                follow(max(next, 1) - 1)
            }
        }
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
