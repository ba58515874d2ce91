public import RelayCore
import RelayHTTP
import RelayNet
import RelayStore
import Synchronization

/// Fans committed events out to stream subscribers.
///
/// Each event is encoded to SSE bytes once and the same bytes go to every subscriber it
/// matches; work is handed to each subscriber's event loop once per published batch, not once per
/// subscriber. A subscriber's stream is bounded (`ResponseStream.maxBufferedBytes`): one that
/// cannot keep up is cut off and resumes from its last id, so it never slows anyone else.
public final class EventHub: Sendable {
    private let store: Store
    private let state = Mutex<State>(State())
    /// Provides the `snapshot` event's data for a filter (set by the service's owner).
    private let snapshotProvider = Mutex<(@Sendable (EventFilter) -> JSONValue)?>(nil)

    private struct State {
        var nextID: UInt64 = 1
        var subscribers: [UInt64: Subscriber] = [:]
        var published: UInt64 = 0
    }

    final class Subscriber: @unchecked Sendable {
        // Sendable: `queue`, `replaying` and `lastSent` are guarded by the hub's lock or touched on `stream.loop`.
        let id: UInt64
        let filter: EventFilter
        let stream: ResponseStream
        var replaying = true
        var queue: [EncodedEvent] = []
        var lastSent: UInt64 = 0

        init(id: UInt64, filter: EventFilter, stream: ResponseStream) {
            self.id = id
            self.filter = filter
            self.stream = stream
        }
    }

    /// An event with its SSE bytes, encoded once.
    struct EncodedEvent: Sendable {
        let event: RelayEvent
        let bytes: [UInt8]
    }

    init(store: Store) { self.store = store }


    /// Sets where `snapshot` events get the current state from.
    public func setSnapshotProvider(_ provider: @escaping @Sendable (EventFilter) -> JSONValue) {
        snapshotProvider.withLock { $0 = provider }
    }

    /// The number of connected subscribers.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// The highest sequence number published so far.
    public var lastPublished: UInt64 { state.withLock { $0.published } }

    /// SSE bytes of `event`.
    static func encode(_ event: RelayEvent) -> [UInt8] {
        SSEEncoder.encode(SSEEvent(id: String(event.seq), event: event.type.rawValue, data: event.data.jsonString))
    }

    /// Hands committed `events` (in sequence order) to every subscriber they match.
    public func publish(_ events: [RelayEvent]) {
        guard !events.isEmpty else { return }
        let encoded = events.map { EncodedEvent(event: $0, bytes: Self.encode($0)) }
        var byLoop: [ObjectIdentifier: (EventLoop, [(Subscriber, [UInt8], UInt64)])] = [:]
        state.withLock { state in
            state.published = max(state.published, events.last?.seq ?? 0)
            for subscriber in state.subscribers.values {
                var bytes: [UInt8] = []
                var last: UInt64 = 0
                for item in encoded where item.event.matches(subscriber.filter) {
                    if subscriber.replaying {
                        subscriber.queue.append(item)
                    } else {
                        bytes.append(contentsOf: item.bytes)
                        last = item.event.seq
                    }
                }
                guard !bytes.isEmpty else { continue }
                let loop = subscriber.stream.loop
                byLoop[ObjectIdentifier(loop), default: (loop, [])].1.append((subscriber, bytes, last))
            }
        }
        for (_, (loop, deliveries)) in byLoop {
            let batch = deliveries
            loop.execute {
                for (subscriber, bytes, last) in batch where last > subscriber.lastSent {
                    subscriber.lastSent = last
                    subscriber.stream.sendOnLoop(bytes)
                }
            }
        }
    }

    /// Subscribes `stream` (on its loop) to events matching `filter`. With `lastEventID` it first
    /// replays every matching event after it from the durable log, or sends a `snapshot` when the
    /// log no longer reaches back that far; live events that arrive meanwhile are held and sent
    /// after the replay, without duplicates or gaps.
    public func subscribe(_ stream: ResponseStream, filter: EventFilter, lastEventID: UInt64?) {
        let subscriber: Subscriber = state.withLock { state in
            let subscriber = Subscriber(id: state.nextID, filter: filter, stream: stream)
            state.nextID += 1
            state.subscribers[subscriber.id] = subscriber
            return subscriber
        }
        let id = subscriber.id
        stream.onEnd { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        if let lastEventID { replay(subscriber, after: lastEventID) }
        let held: [EncodedEvent] = state.withLock { _ in
            subscriber.replaying = false
            defer { subscriber.queue = [] }
            return subscriber.queue
        }
        var bytes: [UInt8] = []
        for item in held where item.event.seq > subscriber.lastSent {
            bytes.append(contentsOf: item.bytes)
            subscriber.lastSent = item.event.seq
        }
        if !bytes.isEmpty { stream.sendOnLoop(bytes) }
    }

    /// Sends the logged events after `lastEventID`, or a snapshot when they are gone.
    private func replay(_ subscriber: Subscriber, after lastEventID: UInt64) {
        let reader = store.reader
        let storeFilter = StoredEventFilter(
            deviceId: subscriber.filter.deviceId, bundleId: subscriber.filter.bundleId,
            activityId: subscriber.filter.activityId, alarmId: subscriber.filter.alarmId,
            types: subscriber.filter.types.map { Set($0.map(\.rawValue)) })
        let oldest = (try? reader.oldestEventSeq()).flatMap { $0 } ?? 0
        if oldest > 0, lastEventID + 1 < UInt64(oldest) {
            sendSnapshot(to: subscriber)
            return
        }
        var cursor = Int64(clamping: lastEventID)
        subscriber.lastSent = lastEventID
        while !subscriber.stream.isEnded {
            guard let page = try? reader.events(after: cursor, limit: 500, filter: storeFilter), !page.isEmpty else {
                break
            }
            var bytes: [UInt8] = []
            for stored in page {
                let data = String(decoding: stored.data, as: UTF8.self)
                SSEEncoder.append(SSEEvent(id: String(stored.seq), event: stored.type, data: data), to: &bytes)
                subscriber.lastSent = UInt64(stored.seq)
            }
            cursor = page.last?.seq ?? cursor
            subscriber.stream.sendOnLoop(bytes)
            if page.count < 500 { break }
        }
    }

    private func sendSnapshot(to subscriber: Subscriber) {
        let latest = UInt64(max(0, (try? store.reader.latestEventSeq()).flatMap { $0 } ?? 0))
        var data = snapshotProvider.withLock { $0 }?(subscriber.filter) ?? [:]
        if case .object(var members) = data {
            members["seq"] = .int(Int64(latest))
            members["type"] = .string(RelayEventType.snapshot.rawValue)
            data = .object(members)
        }
        subscriber.lastSent = latest
        subscriber.stream.sendOnLoop(
            SSEEncoder.encode(SSEEvent(id: String(latest), event: RelayEventType.snapshot.rawValue, data: data.jsonString)))
    }
}
