package import RelayNet

/// A Redis Cluster client on one event loop: commands routed by hash slot, pipelined on one
/// connection per node, answers delivered to callbacks on the same loop.
///
/// The relay's server code runs on its event loops, so this is the shape it needs: one client per
/// loop, `send` called on the loop, the callback run there with no thread hop and no locks. Tests and
/// tools off the loop use `call`, which blocks the calling thread.
///
/// Routing and recovery, in order:
/// 1. A command goes to the master that the slot table names for its key's slot; the table comes from
///    `CLUSTER SHARDS` (or `CLUSTER SLOTS` when the server lacks it) asked of any known node.
/// 2. `MOVED slot host:port`: the slot's entry is updated, a topology refresh is started, and the
///    command goes to the named node (at most `maxRedirects` times).
/// 3. `ASK slot host:port`: `ASKING` and the command are sent to the named node once, the table left alone.
/// 4. `TRYAGAIN`, `CLUSTERDOWN`, `LOADING`, `MASTERDOWN` and `READONLY` mean the command did not run:
///    it waits for the next topology refresh (with backoff) and is sent again.
/// 5. A connection that breaks hands back its unanswered commands: those never written to a
///    connected socket, and `idempotent` ones, wait for the next refresh and are sent again; others
///    fail with `connectionLost`, since they may have been applied.
/// 6. A failed master's slots have no route until a replica is promoted; commands for them wait for
///    refreshes (backoff `refreshDelay` doubling to one second) until their deadline.
package final class RedisClusterClient: @unchecked Sendable {  // Sendable: loop-confined, reached through `loop`.
    /// How the client connects.
    package struct Options: Sendable {
        /// Nodes to learn the topology from: `host:port` with an IP literal host.
        package var seeds: [String]
        /// ACL user for `AUTH` (nil: `default`).
        package var user: String?
        /// Password; nil sends no `AUTH`.
        package var password: String?
        /// TLS to every node, verified against this context's CA file.
        package var tls: TLSClientContext?
        /// The name node certificates must carry; nil verifies each node's IP address.
        package var tlsServerName: String?
        /// Seconds for a connect (and TLS handshake).
        package var connectTimeout = 2.0
        /// Seconds from `send` to the answer, retries and waiting for failover included.
        package var commandTimeout = 10.0
        /// Most `MOVED`/`ASK` redirects followed for one command.
        package var maxRedirects = 5
        /// Bounds on each reply.
        package var limits = RESPLimits()

        /// Options with `seeds` and the defaults.
        package init(seeds: [String]) { self.seeds = seeds }
    }

    /// Counts of what the client had to do, for tests and metrics.
    package struct Stats: Sendable, Equatable {
        package var moved = 0
        package var asked = 0
        package var retried = 0
        package var refreshes = 0
        package var connections = 0
        package var connectionsLost = 0
    }

    /// The loop everything runs on.
    package let loop: EventLoop
    /// The options given.
    package let options: Options
    /// Counters; read on the loop.
    package private(set) var stats = Stats()

    private var slots = [String?](repeating: nil, count: HashSlot.count)
    private var knownNodes: [String]
    private var connections: [String: RedisConnection] = [:]
    private var waiting: [RedisRequest] = []
    private var refreshing = false
    private var refreshTimer: TimerID?
    private var refreshDelay = 0.0
    private var tickTimer: TimerID?
    private var closed = false
    /// A node refused the greeting (a wrong password): reported to waiting commands when no node answers.
    private var greetingFailure: RedisError?

    /// A client on `loop`; it connects on first use.
    package init(options: Options, loop: EventLoop) {
        self.options = options
        self.loop = loop
        knownNodes = options.seeds
    }

    // MARK: - Commands

    /// Sends `command`; `completion` runs on the loop with the reply or the reason there is none.
    /// Must be called on the loop.
    package func send(_ command: RedisCommand, completion: @escaping (Result<RESPValue, RedisError>) -> Void) {
        precondition(loop.inLoop, "RedisClusterClient.send must be called on its loop")
        guard !closed else { return completion(.failure(.shutDown)) }
        let deadline = MonotonicClock.nanoseconds() + Int64(options.commandTimeout * 1e9)
        let request = RedisRequest(command: command, deadline: deadline, completion: completion)
        request.onReply = { [weak self] request, result, connection in
            self?.judge(request, result, from: connection)
        }
        armTick()
        dispatch(request)
    }

    /// Runs a Lua script by `EVALSHA`, falling back to `EVAL` (which also caches it on that node)
    /// when the node answers `NOSCRIPT`. All `keys` must share one slot.
    package func eval(
        _ script: RedisScript, keys: [String], arguments: [String] = [],
        completion: @escaping (Result<RESPValue, RedisError>) -> Void
    ) {
        let tail = [String(keys.count)] + keys + arguments
        let byHash = RedisCommand(["EVALSHA", script.sha1] + tail, keyIndex: keys.isEmpty ? nil : 3)
        send(byHash) { [weak self] result in
            guard let self, case .failure(.server(let text)) = result, text.hasPrefix("NOSCRIPT") else {
                return completion(result)
            }
            send(
                RedisCommand(["EVAL", script.source] + tail, keyIndex: keys.isEmpty ? nil : 3), completion: completion)
        }
    }

    /// Sends `command` from a thread off the loop and waits for the answer. For tests and tools.
    package func call(_ command: RedisCommand) throws(RedisError) -> RESPValue {
        try wait { client, done in client.send(command, completion: done) }
    }

    /// `eval` from a thread off the loop, waiting for the answer.
    package func call(_ script: RedisScript, keys: [String], arguments: [String] = []) throws(RedisError) -> RESPValue {
        try wait { client, done in client.eval(script, keys: keys, arguments: arguments, completion: done) }
    }

    /// Closes every connection and fails what is waiting; must be called on the loop.
    package func shutdown() {
        precondition(loop.inLoop, "RedisClusterClient.shutdown must be called on its loop")
        closed = true
        for request in waiting { request.finish(.failure(.shutDown)) }
        waiting = []
        for connection in connections.values { connection.fail(.shutDown) }
        connections = [:]
        if let refreshTimer { loop.cancel(refreshTimer) }
        if let tickTimer { loop.cancel(tickTimer) }
    }

    // MARK: - Routing

    private func dispatch(_ request: RedisRequest) {
        if MonotonicClock.nanoseconds() >= request.deadline { return request.finish(.failure(.timedOut)) }
        let address = request.target ?? (request.slot.map { slots[$0] } ?? knownNodes.first)
        guard let address, let connection = connection(to: address) else {
            waiting.append(request)
            scheduleRefresh()
            return
        }
        if request.asking {
            connection.send([Array("ASKING".utf8)], waiter: .own { _ in })
            request.asking = false
            request.target = nil
        }
        connection.send(request.command.arguments, waiter: .request(request))
    }

    private func connection(to address: String) -> RedisConnection? {
        if let existing = connections[address] { return existing }
        guard let socketAddress = Self.socketAddress(address) else { return nil }
        let connection = RedisConnection(address: address, limits: options.limits)
        connection.onClose = { [weak self] connection, waiters, reached, error in
            self?.connectionClosed(connection, waiters: waiters, reachedServer: reached, error: error)
        }
        connections[address] = connection
        do {
            try connection.open(socketAddress, options: options, on: loop)
        } catch {
            connections[address] = nil
            return nil
        }
        stats.connections += 1
        return connection
    }

    private func judge(
        _ request: RedisRequest, _ result: Result<RESPValue, RedisError>, from connection: RedisConnection
    ) {
        guard case .failure(.server(let text)) = result else { return request.finish(result) }
        let words = text.split(separator: " ", maxSplits: 3).map(String.init)
        switch words.first {
        case "MOVED", "ASK":
            guard words.count >= 3, let slot = Int(words[1]), (0..<HashSlot.count).contains(slot) else {
                return request.finish(result)
            }
            request.redirects += 1
            guard request.redirects <= options.maxRedirects else {
                return request.finish(.failure(.tooManyRedirects(text)))
            }
            let target = words[2].hasPrefix(":") ? hostOf(connection.address) + words[2] : words[2]
            if words[0] == "MOVED" {
                stats.moved += 1
                slots[slot] = target
                scheduleRefresh()
            } else {
                stats.asked += 1
                request.asking = true
            }
            request.target = target
            dispatch(request)
        case "TRYAGAIN", "CLUSTERDOWN", "LOADING", "MASTERDOWN", "READONLY":
            stats.retried += 1
            request.target = nil
            waiting.append(request)
            scheduleRefresh()
        default:
            request.finish(result)
        }
    }

    private func connectionClosed(
        _ connection: RedisConnection, waiters: [RedisConnection.Waiter], reachedServer: Bool, error: RedisError
    ) {
        if connections[connection.address] === connection { connections[connection.address] = nil }
        stats.connectionsLost += 1
        if case .server = error { greetingFailure = error }
        for waiter in waiters {
            switch waiter {
            case .own(let handler): handler(.failure(error))
            case .request(let request):
                if closed {
                    request.finish(.failure(.shutDown))
                    continue
                }
                if case .protocolViolation = error {
                    request.finish(.failure(error))
                    continue
                }
                if case .server = error {
                    request.finish(.failure(error))
                    continue
                }
                if reachedServer && !request.command.idempotent {
                    request.finish(.failure(error))
                    continue
                }
                stats.retried += 1
                request.target = nil
                request.asking = false
                waiting.append(request)
            }
        }
        scheduleRefresh()
    }

    // MARK: - Topology

    /// Starts a topology refresh after the current backoff, unless one is running or due.
    private func scheduleRefresh() {
        guard !closed, !refreshing, refreshTimer == nil else { return }
        refreshTimer = loop.schedule(after: refreshDelay) { [weak self] in
            guard let self else { return }
            refreshTimer = nil
            refresh(candidates: knownNodes)
        }
        refreshDelay = min(max(refreshDelay * 2, 0.05), 1)
    }

    /// Asks each candidate in turn for `CLUSTER SHARDS`, then `CLUSTER SLOTS`, until one answers.
    private func refresh(candidates: [String]) {
        guard !closed else { return }
        guard let address = candidates.first else {
            refreshing = false
            if let greetingFailure {
                let batch = waiting
                waiting = []
                for request in batch { request.finish(.failure(greetingFailure)) }
                return
            }
            releaseWaiting()
            return
        }
        refreshing = true
        stats.refreshes += 1
        let rest = Array(candidates.dropFirst())
        guard let connection = connection(to: address) else { return refresh(candidates: rest) }
        let tls = options.tls != nil
        connection.queryTopology(address: address, tls: tls) { [weak self] topology in
            guard let self else { return }
            if let topology { adopt(topology) } else { refresh(candidates: rest) }
        }
    }

    private func adopt(_ topology: ClusterTopology) {
        refreshing = false
        greetingFailure = nil
        slots = topology.slotTable()
        var nodes = topology.addresses
        for seed in options.seeds where !nodes.contains(seed) { nodes.append(seed) }
        knownNodes = nodes
        if !slots.contains(where: { $0 == nil }) { refreshDelay = 0 }
        releaseWaiting()
    }

    /// Sends again what waited for a topology; what still has no route waits for the next refresh.
    private func releaseWaiting() {
        let batch = waiting
        waiting = []
        for request in batch { dispatch(request) }
    }

    // MARK: - Deadlines

    /// A timer checking deadlines every quarter second while anything is outstanding.
    private func armTick() {
        guard tickTimer == nil else { return }
        tickTimer = loop.schedule(after: 0.25) { [weak self] in
            guard let self else { return }
            tickTimer = nil
            let now = MonotonicClock.nanoseconds()
            let expired = waiting.filter { $0.deadline <= now }
            waiting.removeAll { $0.deadline <= now }
            for request in expired { request.finish(.failure(.timedOut)) }
            for connection in connections.values {
                if let oldest = connection.oldestRequest, oldest.deadline <= now { connection.fail(.timedOut) }
            }
            if !waiting.isEmpty || connections.values.contains(where: { $0.inFlight > 0 }) { armTick() }
        }
    }

    // MARK: - Helpers

    private func wait(
        _ start: @escaping @Sendable (RedisClusterClient, @escaping (Result<RESPValue, RedisError>) -> Void) -> Void
    ) throws(RedisError) -> RESPValue {
        precondition(!loop.inLoop, "RedisClusterClient.call blocks: use send on the loop")
        let box = ResultBox()
        loop.execute { [self] in start(self) { box.set($0) } }
        return try box.wait().get()
    }

    private func hostOf(_ address: String) -> String {
        guard let colon = address.lastIndex(of: ":") else { return address }
        return String(address[..<colon])
    }

    /// Parses `host:port` or `[v6]:port` with a literal host.
    static func socketAddress(_ address: String) -> SocketAddress? {
        guard let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...]) else {
            return nil
        }
        return try? SocketAddress(host: String(address[..<colon]), port: port)
    }
}
