package import RelayCore
import RelayHTTP
package import RelayJSON
import RelayNet
import RelayStore
import Synchronization

/// Fans committed events out to stream subscribers.
///
/// Each event is encoded to SSE bytes once, and a subscriber that matches every event of a
/// published batch gets those very bytes (no copy per subscriber); work is handed to each event
/// loop once per batch, not once per subscriber. A subscriber's stream is bounded
/// (`ResponseStream.maxBufferedBytes`): one that cannot keep up is cut off and resumes from its
/// last id, so it never slows the publisher or anyone else.
///
/// A subscriber that resumes (`Last-Event-ID`) is first replayed every matching event after its
/// id from the durable log, a page at a time and only while its stream has room; events published
/// meanwhile are held and sent after the replay, without duplicates or gaps. One that is further
/// behind than the log reaches, or ahead of anything published, gets a `snapshot` event instead.
package final class EventHub: Sendable {
    /// What a `snapshot` event says: the sequence number the state corresponds to (live events
    /// after it follow) and the members of its data besides `seq` and `type`.
    package struct Snapshot: Sendable {
        package var seq: UInt64
        package var members: JSONObject

        /// A snapshot of the state as of event `seq`.
        package init(seq: UInt64, members: JSONObject) {
            self.seq = seq
            self.members = members
        }
    }

    /// Events read from the log per replay step.
    static let replayPageSize = 500

    private let store: Store
    private let state = Mutex<State>(State())
    private let snapshotProvider = Mutex<(@Sendable (EventFilter) -> Snapshot)?>(nil)

    private struct State {
        var nextID: UInt64 = 1
        var subscribers: [UInt64: EventSubscriber] = [:]
        var published: UInt64 = 0
    }

    init(store: Store) { self.store = store }

    /// Sets where `snapshot` events get the current state from (the stream routes set it).
    package func setSnapshotProvider(_ provider: @escaping @Sendable (EventFilter) -> Snapshot) {
        snapshotProvider.withLock { $0 = provider }
    }

    /// The number of connected subscribers.
    package var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Bytes queued to subscribers and not yet sent, summed: how far behind they are.
    package var queuedBytes: Int {
        let streams = state.withLock { $0.subscribers.values.map(\.stream) }
        return streams.reduce(0) { $0 + $1.bufferedBytes }
    }

    /// The highest sequence number published so far.
    package var lastPublished: UInt64 { state.withLock { $0.published } }

    /// SSE bytes of `event`.
    static func encode(_ event: RelayEvent) -> [UInt8] {
        encode(event, data: event.data.serialized())
    }

    /// SSE bytes of `event` whose data is already serialized.
    static func encode(_ event: RelayEvent, data: [UInt8]) -> [UInt8] {
        SSEEncoder.encode(id: String(event.seq), event: event.type.rawValue, data: data)
    }

    // MARK: - Publishing

    /// Hands committed `events` (in sequence order) to every subscriber they match.
    /// `data`, when given, holds each event's serialized data (the service already made it for the
    /// store), so nothing is serialized twice. With no subscriber nothing is encoded at all.
    package func publish(_ events: [RelayEvent], data: [[UInt8]]? = nil) {
        guard let lastSeq = events.last?.seq else { return }
        let idle = state.withLock { state in
            state.published = max(state.published, lastSeq)
            return state.subscribers.isEmpty
        }
        if idle { return }
        let encoded: [EncodedEvent]
        if let data, data.count == events.count {
            encoded = zip(events, data).map { EncodedEvent(seq: $0.seq, event: $0, bytes: Self.encode($0, data: $1)) }
        } else {
            encoded = events.map { EncodedEvent(seq: $0.seq, event: $0, bytes: Self.encode($0)) }
        }
        let whole: [UInt8] = encoded.count == 1 ? encoded[0].bytes : encoded.flatMap(\.bytes)
        var byLoop: [ObjectIdentifier: (EventLoop, [EventSubscriber.Delivery])] = [:]
        state.withLock { state in
            state.published = max(state.published, lastSeq)
            for subscriber in state.subscribers.values {
                guard let delivery = subscriber.take(encoded, whole: whole) else { continue }
                let loop = subscriber.stream.loop
                byLoop[ObjectIdentifier(loop), default: (loop, [])].1.append(delivery)
            }
        }
        for (_, (loop, deliveries)) in byLoop {
            loop.execute {
                for delivery in deliveries { delivery.subscriber.deliver(delivery) }
            }
        }
    }

    // MARK: - Subscribing

    /// Where a new subscriber starts.
    package enum Start: Sendable, Equatable {
        /// With the next event published.
        case live
        /// With every matching event after this id (`Last-Event-ID`), from the durable log; a
        /// `snapshot` instead when the log no longer reaches back that far, or the id is ahead
        /// of anything published (another data directory's).
        case after(UInt64)
        /// With a `snapshot` of the current state (what a fresh renderer needs), then live events.
        case snapshot
    }

    /// Subscribes `stream` (call on its loop) to events matching `filter` from `start`.
    /// `preamble` goes first, in the same write as a snapshot (so a snapshot larger than the
    /// stream's bound still goes out whole on a fresh stream).
    package func subscribe(_ stream: ResponseStream, filter: EventFilter, from start: Start, preamble: [UInt8] = []) {
        let subscriber: EventSubscriber = state.withLock { state in
            let subscriber = EventSubscriber(
                id: state.nextID, filter: filter, stream: stream, replaying: start != .live)
            state.nextID += 1
            state.subscribers[subscriber.id] = subscriber
            return subscriber
        }
        let id = subscriber.id
        stream.onEnd { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        switch start {
        case .live:
            if !preamble.isEmpty { stream.sendOnLoop(preamble) }
        case .snapshot:
            sendSnapshot(to: subscriber, after: preamble)
            endReplay(subscriber)
        case .after(let lastEventID):
            let published = state.withLock { $0.published }
            let latest = UInt64(max(0, (try? store.reader.latestEventSeq()).flatMap { $0 } ?? 0))
            let oldest = UInt64(max(0, (try? store.reader.oldestEventSeq()).flatMap { $0 } ?? 0))
            if lastEventID > max(published, latest) || (oldest > 0 && lastEventID + 1 < oldest) {
                sendSnapshot(to: subscriber, after: preamble)
                endReplay(subscriber)
            } else {
                if !preamble.isEmpty { stream.sendOnLoop(preamble) }
                subscriber.lastSent = lastEventID
                replayStep(subscriber, after: lastEventID)
            }
        }
    }

    /// Sends logged events after `cursor`, as many as fit in half the stream's buffer, then
    /// schedules the next step; waits while the buffer is over half full, so a long replay never
    /// trips the slow-subscriber cut-off.
    private func replayStep(_ subscriber: EventSubscriber, after cursor: UInt64) {
        let stream = subscriber.stream
        guard !stream.isEnded else { return }
        let room = stream.maxBufferedBytes / 2 - stream.bufferedBytes
        guard room > 0 else {
            _ = stream.loop.schedule(after: 0.005) { [self] in self.replayStep(subscriber, after: cursor) }
            return
        }
        let page: [StoredEvent]
        do {
            page = try store.reader.events(
                after: Int64(clamping: cursor), limit: Self.replayPageSize, filter: subscriber.storeFilter)
        } catch {
            RelayLog.error("stream.replay", ["subscriber": String(subscriber.id), "error": "\(error)"])
            stream.finish()  // the client resumes from what it got
            return
        }
        var bytes: [UInt8] = []
        var consumed = 0
        for stored in page {
            let event = SSEEncoder.encode(id: String(stored.seq), event: stored.type, data: stored.data)
            if !bytes.isEmpty, bytes.count + event.count > room { break }
            bytes.append(contentsOf: event)
            subscriber.lastSent = max(subscriber.lastSent, UInt64(stored.seq))
            consumed += 1
        }
        if !bytes.isEmpty { stream.sendOnLoop(bytes) }
        guard consumed < page.count || page.count == Self.replayPageSize else {
            endReplay(subscriber)
            return
        }
        let next = subscriber.lastSent
        stream.loop.execute { [self] in self.replayStep(subscriber, after: next) }
    }

    /// Switches `subscriber` to live delivery, sending what was held during the replay.
    private func endReplay(_ subscriber: EventSubscriber) {
        let (held, overflowed) = state.withLock { _ in subscriber.stopReplaying() }
        if overflowed {
            // More arrived during the replay than its buffer holds: it resumes from what it has.
            RelayLog.info("stream.replay.overflow", ["subscriber": String(subscriber.id)])
            subscriber.stream.finish()
            return
        }
        var bytes: [UInt8] = []
        for item in held where item.seq > subscriber.lastSent {
            bytes.append(contentsOf: item.bytes)
            subscriber.lastSent = item.seq
        }
        if !bytes.isEmpty { subscriber.stream.sendOnLoop(bytes) }
    }

    private func sendSnapshot(to subscriber: EventSubscriber, after preamble: [UInt8]) {
        let provider = snapshotProvider.withLock { $0 }
        let latest = max(lastPublished, UInt64(max(0, (try? store.reader.latestEventSeq()).flatMap { $0 } ?? 0)))
        var snapshot = provider?(subscriber.filter) ?? Snapshot(seq: latest, members: [:])
        snapshot.members["seq"] = .int(Int64(clamping: snapshot.seq))
        snapshot.members["type"] = .string(RelayEventType.snapshot.rawValue)
        subscriber.lastSent = snapshot.seq
        let data = JSONValue.object(snapshot.members).jsonString
        var bytes = preamble
        SSEEncoder.append(
            SSEEvent(id: String(snapshot.seq), event: RelayEventType.snapshot.rawValue, data: data), to: &bytes)
        subscriber.stream.sendOnLoop(bytes)
    }
}

/// An event with its SSE bytes, encoded once for every subscriber.
struct EncodedEvent: Sendable {
    let seq: UInt64
    let event: RelayEvent
    let bytes: [UInt8]
}
