/// A bounded memory of recently closed streams and how each closed, so late frames can be told
/// apart (RFC 9113 §5.1 "closed"): frames after our RST_STREAM are ignored, frames after the
/// peer's RST_STREAM are a stream error, frames after a normal close are a connection error.
///
/// Only the most recent `capacity` streams are kept; older ones are reported as unknown and the
/// connection treats them leniently.
struct HTTP2ClosedStreams: Sendable {
    /// How a stream ended.
    enum Reason: Hashable, Sendable {
        /// We sent RST_STREAM (including refusals and our NO_ERROR reset after a complete response).
        case resetByUs
        /// The peer sent RST_STREAM.
        case resetByPeer
        /// Both sides sent END_STREAM.
        case ended
    }

    /// How many streams are remembered.
    let capacity: Int
    private var reasons: [UInt32: Reason] = [:]
    private var order: [UInt32] = []
    private var next = 0

    /// Nothing is allocated until a stream closes: an idle connection keeps no history buffer.
    init(capacity: Int = 256) {
        self.capacity = max(capacity, 1)
    }

    /// Remembers how `streamID` closed, forgetting the oldest entry when full.
    mutating func record(_ streamID: UInt32, _ reason: Reason) {
        if reasons.updateValue(reason, forKey: streamID) != nil { return }
        if order.count < capacity {
            order.append(streamID)
        } else {
            reasons[order[next]] = nil
            order[next] = streamID
            next = (next + 1) % capacity
        }
    }

    /// How `streamID` closed, or nil when it is not remembered.
    func reason(for streamID: UInt32) -> Reason? { reasons[streamID] }
}
