/// Something owning a file descriptor registered on an event loop (listener, connection, signalfd).
///
/// Called on the loop's thread only.
protocol LoopSource: AnyObject {
    /// epoll reported `events` (a mask of `EPOLLIN`, `EPOLLOUT`, `EPOLLERR`, `EPOLLHUP`...) for the descriptor.
    func handleEvents(_ events: UInt32)
    /// The loop is stopping with this source still registered: release the descriptor now.
    func loopStopping()
}

/// Something that buffers output during a loop pass and writes it out once at the pass's end.
protocol LoopFlushable: AnyObject {
    /// Write out what was buffered during this pass.
    func flushAtEndOfPass()
}

/// An epoll registration: the token epoll hands back, unique for the loop's lifetime, so a late event
/// for a closed descriptor can never reach whatever reuses its number.
struct LoopRegistration: Hashable {
    /// Stored in `epoll_event.data.u64`.
    let token: UInt64
    /// The registered descriptor.
    let fd: Int32
}
