/// Where a client-initiated stream stands (RFC 9113 §5.1), seen from the server.
///
/// `idle` and `closed` are not cases: an idle stream has no record yet and a closed one has none
/// any more (see `HTTP2ClosedStreams`). The reserved states belong to server push, which this
/// server never uses.
enum HTTP2StreamState: Hashable, Sendable {
    /// Both sides may send.
    case open
    /// The client sent END_STREAM; only we may send.
    case halfClosedRemote
    /// We sent END_STREAM; only the client may send.
    case halfClosedLocal
    /// Both sides are done; the record is about to be dropped.
    case closed

    /// Whether the client may still send DATA or trailers.
    var canReceive: Bool { self == .open || self == .halfClosedLocal }

    /// Whether we may still send HEADERS or DATA.
    var canSend: Bool { self == .open || self == .halfClosedRemote }

    /// The client's END_STREAM arrived.
    mutating func receiveEndStream() {
        switch self {
        case .open: self = .halfClosedRemote
        case .halfClosedLocal: self = .closed
        case .halfClosedRemote, .closed: break
        }
    }

    /// Our END_STREAM went out.
    mutating func sendEndStream() {
        switch self {
        case .open: self = .halfClosedLocal
        case .halfClosedRemote: self = .closed
        case .halfClosedLocal, .closed: break
        }
    }
}
