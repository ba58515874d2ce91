import RelayCore
import RelayStore

/// One stream subscribed to the hub: its filter, its stream, and where it stands.
///
/// `replaying`, `held`, `heldBytes` and `overflowed` are guarded by the hub's lock (the publisher
/// and the replay both touch them); `lastSent` is touched only on the stream's loop.
final class EventSubscriber: @unchecked Sendable {
    // Sendable: members are guarded by the hub's lock or confined to `stream.loop`, as noted above.
    let id: UInt64
    let filter: EventFilter
    let storeFilter: StoredEventFilter
    let stream: ResponseStream
    /// The highest sequence number sent (on the loop).
    var lastSent: UInt64 = 0
    private var replaying: Bool
    private var held: [EncodedEvent] = []
    private var heldBytes = 0
    private var overflowed = false

    /// What one published batch brings a subscriber: the bytes to send and the last sequence in them.
    struct Delivery: Sendable {
        let subscriber: EventSubscriber
        let bytes: [UInt8]
        let lastSeq: UInt64
    }

    init(id: UInt64, filter: EventFilter, stream: ResponseStream, replaying: Bool) {
        self.id = id
        self.filter = filter
        self.stream = stream
        self.replaying = replaying
        storeFilter = StoredEventFilter(
            deviceId: filter.deviceId, bundleId: filter.bundleId, activityId: filter.activityId,
            alarmId: filter.alarmId, types: filter.types.map { Set($0.map(\.rawValue)) })
    }

    /// Under the hub's lock: the delivery of the matching events of a batch, or nil when none
    /// match or they are held for after the replay. `whole` is the whole batch's bytes, shared
    /// by every subscriber that matches all of it.
    func take(_ batch: [EncodedEvent], whole: [UInt8]) -> Delivery? {
        if replaying {
            for item in batch where item.event.matches(filter) {
                heldBytes += item.bytes.count
                if heldBytes > stream.maxBufferedBytes {
                    overflowed = true
                    held = []
                }
                if !overflowed { held.append(item) }
            }
            return nil
        }
        var matched = 0
        for item in batch where item.event.matches(filter) { matched += 1 }
        guard matched > 0, let last = batch.last(where: { $0.event.matches(filter) }) else { return nil }
        if matched == batch.count { return Delivery(subscriber: self, bytes: whole, lastSeq: last.seq) }
        var bytes: [UInt8] = []
        for item in batch where item.event.matches(filter) { bytes.append(contentsOf: item.bytes) }
        return Delivery(subscriber: self, bytes: bytes, lastSeq: last.seq)
    }

    /// Under the hub's lock: ends the replay, returning what was held and whether it overflowed.
    func stopReplaying() -> ([EncodedEvent], Bool) {
        replaying = false
        defer {
            held = []
            heldBytes = 0
        }
        return (held, overflowed)
    }

    /// On the loop: sends a delivery unless the replay already covered it.
    func deliver(_ delivery: Delivery) {
        guard delivery.lastSeq > lastSent else { return }
        lastSent = delivery.lastSeq
        stream.sendOnLoop(delivery.bytes)
    }
}
