import RelayCore
import RelayHTTP
import RelayJSON
import RelayNet
import RelayRedis
import RelayStore

// MARK: - The fleet feed: every device's events in one stream

extension ClusterStore {
    /// One event as the feed takes it: its device ("" for an event of no device, such as a clock
    /// change) and its number in that device's sequence (0 for none), with the fields of a device
    /// stream's entry (`t`, `d`, `b`, `a`, `l`).
    struct FeedEvent: Sendable {
        var device: String
        var seq: UInt64
        var type: String
        var data: String
        var bundleId: String
        var activityId: String
        var alarmId: String

        /// `event`, serialized as `data`, of `device` ("" for none; its number is the event's seq).
        init(_ event: RelayEvent, data: [UInt8], device: String = "") {
            self.init(
                device: device, seq: device.isEmpty ? 0 : event.seq, type: event.type.rawValue,
                data: String(decoding: data, as: UTF8.self), bundleId: event.bundleId ?? "",
                activityId: event.activityId ?? "", alarmId: event.alarmId ?? "")
        }

        init(
            device: String, seq: UInt64, type: String, data: String, bundleId: String, activityId: String,
            alarmId: String
        ) {
            self.device = device
            self.seq = seq
            self.type = type
            self.data = data
            self.bundleId = bundleId
            self.activityId = activityId
            self.alarmId = alarmId
        }

        /// The script's arguments for this event.
        var arguments: [String] { [device, String(seq), type, data, bundleId, activityId, alarmId] }
    }

    /// Most entries of a device's stream copied into the feed per read when filling a gap.
    static let feedFillBatch = 1000
    /// Most gap fills one append makes before it fails.
    static let maxFeedFills = 16

    /// Appends `events` to the fleet feed `{relay}:feed` after their device's commit, as the next
    /// entries `0-<n>`. The feed keeps each device's events in the device's order, each once:
    /// `ClusterScripts.feed` skips an event already fed, and when an event's predecessor is not
    /// there yet (another node committed it and has not fed it, or died first) it answers `gap`,
    /// and the missing events are copied from the device's stream before these are appended.
    func feed(
        _ events: [FeedEvent], on client: RedisClusterClient, fills: Int = 0,
        completion: @escaping (Result<Void, StoreError>) -> Void
    ) {
        feed(events, force: false, on: client, fills: fills, completion: completion)
    }

    /// `feed`, with `force` set once a fill found none of the missing events in the device's
    /// stream (trimmed away): then these are appended after the gap.
    private func feed(
        _ events: [FeedEvent], force: Bool, on client: RedisClusterClient, fills: Int,
        completion: @escaping (Result<Void, StoreError>) -> Void
    ) {
        guard settings.fleetStream, !events.isEmpty else { return completion(.success(())) }
        append(events, force: force, on: client) { [self] result in
            switch result {
            case .failure(let error): completion(.failure(error))
            case .success(nil): completion(.success(()))
            case .success(let (device, fed)?):
                guard fills < Self.maxFeedFills else {
                    return completion(
                        .failure(
                            StoreError(
                                operation: "feed", code: 0,
                                message: "device \(device): its events could not be fed in order (\(fills) fills)")))
                }
                fill(device, after: fed, on: client) { [self] filled in
                    switch filled {
                    case .failure(let error): completion(.failure(error))
                    case .success(let copied):
                        feed(events, force: copied == 0, on: client, fills: fills + 1, completion: completion)
                    }
                }
            }
        }
    }

    /// Runs the feed script; nil when everything was appended (or already there), else the device
    /// whose predecessor events are missing and the last of its events the feed holds.
    private func append(
        _ events: [FeedEvent], force: Bool, on client: RedisClusterClient,
        completion: @escaping (Result<(String, UInt64)?, StoreError>) -> Void
    ) {
        var arguments = [String(max(1, retention.events)), force ? "1" : "0", String(events.count)]
        for event in events { arguments += event.arguments }
        client.eval(
            ClusterScripts.feed, keys: [ClusterKeys.feed, ClusterKeys.fed, ClusterKeys.feedNumber], arguments: arguments
        ) { result in
            switch result {
            case .failure(let error): completion(.failure(Self.storeError(error)))
            case .success(let reply):
                let parts = reply.elements ?? []
                if parts.first?.string == "ok" { return completion(.success(nil)) }
                guard parts.count == 3, parts[0].string == "gap", let device = parts[1].string,
                    let fed = parts[2].integer.flatMap({ UInt64(exactly: $0) })
                else {
                    return completion(
                        .failure(StoreError(operation: "feed", code: 0, message: "unexpected reply \(reply)")))
                }
                completion(.success((device, fed)))
            }
        }
    }

    /// Copies the events of `device` after `fed` from its stream into the feed, accepting a jump
    /// where the device's stream was trimmed past them. Completes with how many it found.
    private func fill(
        _ device: String, after fed: UInt64, on client: RedisClusterClient,
        completion: @escaping (Result<Int, StoreError>) -> Void
    ) {
        let range = RedisCommand(
            ["XRANGE", ClusterKeys.events(device), "0-\(fed + 1)", "+", "COUNT", String(Self.feedFillBatch)],
            idempotent: true)
        entries(range, maxEntries: Self.feedFillBatch, on: client) { [self] read in
            let entries: [StreamEntry]
            switch read {
            case .failure(let error): return completion(.failure(error))
            case .success(let found): entries = found
            }
            let events = entries.map { Self.feedEvent(device: device, entry: $0) }
            guard !events.isEmpty else { return completion(.success(0)) }
            append(events, force: true, on: client) { appended in completion(appended.map { _ in events.count }) }
        }
    }

    /// The entries an `XRANGE` (or, newest first, an `XREVRANGE`) of at most `maxEntries` answers,
    /// in the order Redis sent them.
    func entries(
        _ range: RedisCommand, maxEntries: Int, on client: RedisClusterClient,
        completion: @escaping (Result<[StreamEntry], StoreError>) -> Void
    ) {
        let newestFirst = range.arguments.first == Array("XREVRANGE".utf8)
        client.send(range) { result in
            switch result {
            case .failure(let error): completion(.failure(Self.storeError(error)))
            case .success(let reply):
                do {
                    // Entries are checked in increasing order, so a newest-first reply is read reversed.
                    let items = reply.elements ?? []
                    let read = try StreamReply.entries(
                        newestFirst ? .array(items.reversed()) : reply, maxEntries: maxEntries)
                    completion(.success(newestFirst ? read.reversed() : read))
                } catch {
                    completion(.failure(StoreError(operation: "stream", code: 0, message: "\(error)")))
                }
            }
        }
    }

    /// The feed's copy of an entry of `device`'s stream.
    static func feedEvent(device: String, entry: StreamEntry) -> FeedEvent {
        func text(_ field: String) -> String {
            entry.value(of: field).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
        return FeedEvent(
            device: device, seq: entry.id.sequence, type: text("t"), data: text("d"), bundleId: text("b"),
            activityId: text("a"), alarmId: text("l"))
    }

    /// Serves `stream` the fleet's events from the feed, filtered by `filter`: after feed entry
    /// `lastEventID` when resuming, else after a `snapshot` event of the fleet when `snapshot` is
    /// set, otherwise from now. An event's id is its number in the feed, so ids only increase and
    /// `Last-Event-ID` resumes on any node.
    func subscribeFleet(
        _ stream: ResponseStream, filter: EventFilter, after lastEventID: UInt64?, snapshot: Bool, preamble: [UInt8]
    ) {
        let loop = stream.loop
        loop.execute { [self] in
            stream.sendOnLoop(preamble)
            let follow: @Sendable (UInt64) -> Void = { [self] after in
                self.follow(ClusterKeys.feed, after: after, into: stream, filter: filter)
            }
            let takeSnapshot: @Sendable () -> Void = { [self] in
                client(on: loop).send(RedisCommand(["GET", ClusterKeys.feedNumber], idempotent: true)) {
                    [self] result in
                    let position = (try? result.get())?.string.flatMap { UInt64($0) } ?? 0
                    snapshotFleet(filter: filter, at: position, on: loop) { outcome in
                        switch outcome {
                        case .failure(let error):
                            RelayLog.error("stream.snapshot", ["device": "-", "error": error.description])
                            stream.finish()
                        case .success(let members):
                            Self.sendSnapshot(members, at: position, to: stream)
                            follow(position)
                        }
                    }
                }
            }
            if let lastEventID {
                return isBehind(ClusterKeys.feed, after: lastEventID, on: loop) { behind in
                    behind ? takeSnapshot() : follow(lastEventID)
                }
            }
            if snapshot { return takeSnapshot() }
            client(on: loop).send(RedisCommand(["GET", ClusterKeys.feedNumber], idempotent: true)) { result in
                follow((try? result.get())?.string.flatMap { UInt64($0) } ?? 0)
            }
        }
    }

    /// The snapshot of every device's state that `filter` matches, read after the feed stood at
    /// `position`: it holds at least what the feed holds up to there, and an event after it may
    /// already be in it (applying it again changes nothing a renderer shows).
    private func snapshotFleet(
        filter: EventFilter, at position: UInt64, on loop: EventLoop,
        completion: @escaping @Sendable (Result<JSONObject, StoreError>) -> Void
    ) {
        let clockJSON = clock.json
        readFleet(
            on: loop, { emulator in StreamSnapshot.of(emulator, filter: filter, clock: clockJSON).members },
            completion: completion)
    }
}
