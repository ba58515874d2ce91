import Glibc

/// A TLS listener spread over an event-loop group: accepts, handshakes with a `TLSContext`, and hands each
/// ready connection to a fresh `ConnectionHandler`.
///
/// Each `bind` opens one listening socket on one loop; accepted sockets are dealt round-robin to the
/// group's loops (one `execute` hop each, small beside a handshake). One socket per address, rather than an
/// SO_REUSEPORT socket per loop, keeps "address already in use" an error when another process holds the
/// port, spreads connections evenly however few clients there are, and means closing a listener at
/// shutdown resets no connection queued on a sibling socket. Limits apply server-wide: past `maxConnections`, or
/// past `maxConnectionsPerAddress` from one IP address, new connections are accepted and closed, counted
/// in `refusedConnections` and reported to `onRefusal`.
/// `beginShutdown` stops accepting, asks every handler to finish (`shutdownRequested`) and force-closes
/// what is left after the grace period; `waitUntilClosed`/`onAllClosed` report when everything is closed.
// Sendable: shared counters under `lock`; per-loop state confined to its loop.
package final class TLSServer: @unchecked Sendable {
    /// The loops connections run on.
    package let group: EventLoopGroup
    /// The TLS policy every connection uses.
    package let tls: TLSContext
    /// The limits in force (out-of-range values clamped).
    package let limits: ServerLimits
    private let makeHandler: @Sendable () -> any ConnectionHandler
    private let loopStates: [LoopState]

    private let lock = Lock()
    // Guarded by `lock`.
    private var openConnections = 0
    /// Open connections per peer IP address (entries removed at zero).
    private var openPerAddress: [String: Int] = [:]
    private var refused: UInt64 = 0
    private var refusalObserver: (@Sendable (_ reason: ConnectionRefusal, _ remoteAddress: String) -> Void)?
    private var openListeners = 0
    private var nextConnectionID: UInt64 = 1
    private var shuttingDown = false
    private var allClosedCallbacks: [@Sendable () -> Void] = []
    private var handshakeFailureObserver: (@Sendable (_ remoteAddress: String, _ error: any Error) -> Void)?
    private var admission: (@Sendable (_ remoteAddress: String) -> Bool)?

    /// Prepares a server; nothing listens until `bind`. `makeHandler` runs on the connection's loop when its
    /// handshake completes. SIGPIPE is ignored process-wide from here on (sockets also use MSG_NOSIGNAL).
    package init(
        group: EventLoopGroup, tls: TLSContext, limits: ServerLimits = ServerLimits(),
        makeHandler: @escaping @Sendable () -> any ConnectionHandler
    ) {
        self.group = group
        self.tls = tls
        self.limits = limits.clamped
        self.makeHandler = makeHandler
        loopStates = group.loops.map(LoopState.init)
        SignalWatcher.ignoreSIGPIPE()
    }

    /// Called (on a loop thread) for every connection that closed before its handshake completed: stalled,
    /// refused protocol version, bad certificate... For logging; connections never reach a handler then.
    package func onHandshakeFailure(
        _ observer: @escaping @Sendable (_ remoteAddress: String, _ error: any Error) -> Void
    ) {
        lock.withLock { handshakeFailureObserver = observer }
    }

    /// Called (on the accepting loop) for every connection closed at once by a limit; for counting and
    /// (rate-limited) logging.
    package func onRefusal(
        _ observer: @escaping @Sendable (_ reason: ConnectionRefusal, _ remoteAddress: String) -> Void
    ) {
        lock.withLock { refusalObserver = observer }
    }

    /// Connections closed at once by `maxConnections` or `maxConnectionsPerAddress` since start.
    package var refusedConnections: UInt64 { lock.withLock { refused } }

    /// Asks `admit` (on a loop thread) about every accepted connection before its handshake; one it
    /// refuses is closed at once, so the client's handshake fails. For fault injection.
    package func onAccept(_ admit: @escaping @Sendable (_ remoteAddress: String) -> Bool) {
        lock.withLock { admission = admit }
    }

    /// Starts listening on `host` (IPv4 or IPv6 literal, or `localhost`) and `port` (0 picks a free one);
    /// returns the bound port. Call from outside the group's loops (it waits for one of them). May be
    /// called more than once for several addresses.
    @discardableResult
    package func bind(host: String, port: UInt16) throws -> UInt16 {
        guard !lock.withLock({ shuttingDown }) else {
            throw SystemError(call: "bind after beginShutdown", errno: ECANCELED)
        }
        let requested = try SocketAddress(host: host, port: port)
        let socket = try Socket.listen(on: requested, backlog: limits.listenBacklog)
        let address: SocketAddress
        do {
            address = try socket.localAddress()
        } catch {
            socket.close()
            throw error
        }
        let state = loopStates[lock.withLock { openListeners } % loopStates.count]
        do {
            try state.loop.submitAndWait { [self] in try startListener(socket, address: address, on: state) }
        } catch let error as SystemError where error.call == "EventLoop.submitAndWait" {
            socket.close()  // the loop stopped before it could take the socket
            throw error
        }
        return address.port
    }

    /// Stops accepting, asks every open connection's handler to wind down, and closes whatever is still open
    /// `gracePeriod` seconds later. Callable from any thread; later calls do nothing.
    package func beginShutdown(gracePeriod: Double = 10) {
        guard
            lock.withLock({ () -> Bool in
                defer { shuttingDown = true }
                return !shuttingDown
            })
        else { return }
        for state in loopStates {
            state.loop.execute { state.beginShutdown(gracePeriod: gracePeriod) }
        }
        notifyIfAllClosed()
    }

    /// Blocks until shutdown has begun and every listener and connection is closed; false on timeout.
    @discardableResult
    package func waitUntilClosed(timeout: Double? = nil) -> Bool {
        guard let timeout else {
            lock.wait { allClosed }
            return true
        }
        return lock.wait(until: { allClosed }, timeout: timeout)
    }

    /// Calls `callback` once shutdown has begun and everything is closed (at once if that is already so),
    /// on whichever thread closed the last connection.
    package func onAllClosed(_ callback: @escaping @Sendable () -> Void) {
        let now: Bool = lock.withLock {
            if allClosed { return true }
            allClosedCallbacks.append(callback)
            return false
        }
        if now { callback() }
    }

    /// Connections accepted and not yet closed (handshaking or ready), across all loops.
    package var connectionCount: Int { lock.withLock { openConnections } }

    private var allClosed: Bool { shuttingDown && openConnections == 0 && openListeners == 0 }

    private func notifyIfAllClosed() {
        let callbacks: [@Sendable () -> Void] = lock.withLockBroadcasting {
            guard allClosed else { return [] }
            defer { allClosedCallbacks.removeAll() }
            return allClosedCallbacks
        }
        for callback in callbacks { callback() }
    }

    // MARK: - On the loops

    private func startListener(_ socket: Socket, address: SocketAddress, on state: LoopState) throws {
        let listener = Listener(
            socket: socket, address: address, loop: state.loop, acceptsPerPass: limits.acceptsPerPass,
            adopt: { [self] client, peer in dealOut(client, peer: peer) },
            onClose: { [self] in
                lock.withLock { openListeners -= 1 }
                notifyIfAllClosed()
            })
        lock.withLock { openListeners += 1 }
        do {
            try listener.start()
        } catch {
            lock.withLock { openListeners -= 1 }
            throw error
        }
        state.listeners.append(listener)
        if state.shuttingDown { listener.close() }
    }

    /// Admits an accepted socket (or closes it at once when over `maxConnections`, shutting down or refused
    /// by the `onAccept` gate) and
    /// hands it to the next loop.
    private func dealOut(_ socket: Socket, peer: SocketAddress) {
        let host = peer.host
        var refusal: ConnectionRefusal?
        var admit: (@Sendable (String) -> Bool)?
        let admitted: (id: UInt64, state: LoopState)? = lock.withLock {
            guard !shuttingDown else { return nil }
            let fromPeer = openPerAddress[host, default: 0]
            if openConnections >= limits.maxConnections {
                refusal = .serverFull
            } else if fromPeer >= limits.maxConnectionsPerAddress {
                refusal = .addressFull
            }
            guard refusal == nil else {
                refused += 1
                return nil
            }
            openConnections += 1
            openPerAddress[host] = fromPeer + 1
            admit = admission
            defer { nextConnectionID += 1 }
            return (nextConnectionID, loopStates[Int(nextConnectionID % UInt64(loopStates.count))])
        }
        guard let (id, state) = admitted else {
            socket.close()
            if let refusal { lock.withLock { refusalObserver }?(refusal, peer.description) }
            return
        }
        if let admit, !admit(peer.description) {
            socket.setResetOnClose()
            socket.close()
            released(host: host)
            return
        }
        if state.loop.inLoop {
            adopt(socket, peer: peer, id: id, on: state)
        } else if !state.loop.tryExecute({ [self] in adopt(socket, peer: peer, id: id, on: state) }) {
            socket.close()
            released(host: host)
        }
    }

    private func adopt(_ socket: Socket, peer: SocketAddress, id: UInt64, on state: LoopState) {
        guard !state.shuttingDown else {  // dealt out just before shutdown reached this loop
            socket.close()
            released(host: peer.host)
            return
        }
        do {
            try socket.setNoDelay()
            let connection = Connection(
                socket: socket, remoteAddress: peer.description, remoteHost: peer.host, id: id, loop: state.loop,
                engine: try TLSEngine(context: tls), limits: limits, makeHandler: makeHandler,
                onClose: { [self, state] connection, error, wasReady in
                    connectionClosed(connection, error: error, wasReady: wasReady, on: state)
                })
            state.connections[id] = connection
            do {
                try connection.start()
            } catch {
                state.connections[id] = nil
                released(host: peer.host)
            }
        } catch {
            socket.close()
            released(host: peer.host)
            reportHandshakeFailure(peer.description, error)
        }
    }

    private func connectionClosed(_ connection: Connection, error: (any Error)?, wasReady: Bool, on state: LoopState) {
        state.connections[connection.id] = nil
        released(host: connection.remoteHost)
        if !wasReady, let error { reportHandshakeFailure(connection.remoteAddress, error) }
    }

    private func released(host: String) {
        lock.withLock {
            openConnections -= 1
            let left = openPerAddress[host, default: 1] - 1
            openPerAddress[host] = left > 0 ? left : nil
        }
        notifyIfAllClosed()
    }

    private func reportHandshakeFailure(_ remoteAddress: String, _ error: any Error) {
        lock.withLock { handshakeFailureObserver }?(remoteAddress, error)
    }

    /// What the server keeps per loop; touched only on that loop.
    private final class LoopState: @unchecked Sendable {  // Sendable: only used on `loop`, reached via execute.
        let loop: EventLoop
        var listeners: [Listener] = []
        var connections: [UInt64: Connection] = [:]
        var shuttingDown = false

        init(loop: EventLoop) { self.loop = loop }

        func beginShutdown(gracePeriod: Double) {
            shuttingDown = true
            for listener in listeners { listener.close() }
            listeners.removeAll()
            for connection in Array(connections.values) { connection.requestShutdown() }
            guard !connections.isEmpty else { return }
            loop.schedule(after: gracePeriod) { [self] in
                for connection in Array(connections.values) {
                    connection.close(error: ConnectionError.shutdownGracePeriodExpired)
                }
            }
        }
    }
}

/// Why `TLSServer` closed a connection as soon as it accepted it.
package enum ConnectionRefusal: String, Sendable {
    /// `maxConnections` connections were open.
    case serverFull = "max connections"
    /// `maxConnectionsPerAddress` connections from the peer's address were open.
    case addressFull = "max connections per address"
}
