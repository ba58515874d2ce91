/// One flow-control window (RFC 9113 §5.2, §6.9): how many DATA bytes may still be sent (or
/// received) on a stream or on the whole connection.
///
/// A window can go negative when the peer lowers SETTINGS_INITIAL_WINDOW_SIZE after data was sent;
/// it then has to be credited back above zero before more data may flow.
struct HTTP2FlowControlWindow: Hashable, Sendable {
    /// The current size; may be negative.
    private(set) var size: Int

    init(_ size: Int) { self.size = size }

    /// Whether `length` bytes fit in the window.
    func allows(_ length: Int) -> Bool { length <= size }

    /// How many bytes may be sent now (never negative).
    var available: Int { max(size, 0) }

    /// Takes `length` bytes from the window; the caller has checked `allows(length)`.
    mutating func consume(_ length: Int) { size -= length }

    /// Adds a WINDOW_UPDATE increment; fails when the window would exceed 2^31-1.
    mutating func increase(by increment: Int) -> Bool {
        guard size + increment <= HTTP2PeerSettings.maxWindowSize else { return false }
        size += increment
        return true
    }

    /// Applies a change of SETTINGS_INITIAL_WINDOW_SIZE (`delta` may be negative); fails when the
    /// window would exceed 2^31-1.
    mutating func adjust(by delta: Int) -> Bool {
        guard size + delta <= HTTP2PeerSettings.maxWindowSize else { return false }
        size += delta
        return true
    }
}
