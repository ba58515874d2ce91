/// What the shell needs to run the deadlines that bound how long a peer may hold the connection's
/// memory: a header block still arriving, request bodies still arriving, response bytes the peer's
/// window holds back. The shell owns the clock; these only say what is pending.
extension HTTP2ServerConnection {
    /// True while a HEADERS frame waits for its CONTINUATION frames (the header-read deadline runs).
    package var isReceivingHeaderBlock: Bool { pendingHeaderBlock != nil }

    /// Streams whose request head arrived and whose body is still arriving (the body deadline runs
    /// for each).
    package var streamsAwaitingBody: [UInt32] {
        streams.compactMap { id, stream in
            !stream.delivered && stream.head != nil && stream.state.canReceive ? id : nil
        }
    }

    /// True when response bytes are queued but no window lets any of them out: the peer is the one
    /// holding them (the send deadline runs).
    package var isSendBlocked: Bool {
        guard phase != .closed, !hasOutput else { return false }
        return scheduledStreams.contains { (streams[$0]?.bufferedBytes ?? 0) > 0 }
    }

    /// Response bytes queued on every stream and not yet handed out: what the peer's windows hold
    /// back (the shell refuses new streams past its cap).
    package var queuedResponseBytes: Int {
        scheduledStreams.reduce(0) { total, id in total + (streams[id]?.bufferedBytes ?? 0) }
    }

    /// Gives up on a request whose body did not arrive in time: its buffered body is dropped (and
    /// its connection window returned), further DATA on it is discarded, and the stream counts as
    /// delivered so the shell answers it (408) like any request. False when the stream is not
    /// awaiting a body.
    package mutating func abandonRequestBody(streamID: UInt32) -> Bool {
        guard phase != .closed, let index = streams.index(forKey: streamID), !streams.values[index].delivered,
            streams.values[index].head != nil
        else { return false }
        streams.values[index].discardBody()
        streams.values[index].delivered = true
        creditConnectionWindow()
        return true
    }
}
