import Synchronization

/// One connection's share of the request body bytes every connection of the process holds while
/// their requests arrive (`http.maxBufferedRequestBytesTotal`): the session moves its share as its
/// buffered bytes change, and the total is one atomic counter.
struct BufferedRequestShare {
    /// Request bytes held across every connection.
    private static let total = Atomic<Int>(0)
    /// This connection's part of `total`, as last counted.
    private var counted = 0

    /// The bytes held across every connection.
    static var bytesHeld: Int { total.load(ordering: .relaxed) }

    /// Moves this connection's share to `bytes` (0 when it closes).
    mutating func update(_ bytes: Int) {
        guard bytes != counted else { return }
        Self.total.add(bytes - counted, ordering: .relaxed)
        counted = bytes
    }
}
