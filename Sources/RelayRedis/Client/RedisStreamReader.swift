package import RelayNet

/// Follows Redis Streams across a cluster on one event loop: each watch gets the entries after its
/// start position, in id order, each exactly once, through master failovers and slot moves.
///
/// Redis Cluster refuses a multi-key command whose keys hash to different slots (`CROSSSLOT`), so
/// one `XREAD BLOCK` cannot cover a master's devices, and a blocking connection per watched slot
/// would cost a connection per device. The reader instead keeps one dedicated connection per master
/// that holds watched keys, with server-assisted client tracking (`CLIENT TRACKING ON`, RESP3):
/// every read of a key registers it, and the master pushes `invalidate <key>` when a write changes
/// it, which starts the next read. A write costs its push plus one non-blocking `XREAD` round trip;
/// nothing polls and nothing blocks, so adding a watch never waits for a pending read.
///
/// Rules, in order:
/// 1. A key is read with `XREAD COUNT batchSize STREAMS key cursor`, at most one read in flight per
///    key, on the connection to the master of its slot (never the pipelined client's). The reply
///    goes to the watches as `StreamWatchers` says; a full batch, or a push during the read, reads
///    again at once. A missing or trimmed stream reads as empty.
/// 2. An `invalidate` push naming a watched key (or null: every key that node tracked) reads it.
/// 3. `MOVED` updates the slot's route, schedules a topology refresh and reads there; `ASK` reads
///    once at the named node after `ASKING`; `TRYAGAIN`, `CLUSTERDOWN`, `LOADING`, `MASTERDOWN`,
///    `READONLY` wait for the next refresh. Other errors (`WRONGTYPE`) read again after `healthInterval`.
/// 4. A connection that breaks (a killed master) detaches its keys; topology refreshes with backoff
///    (50 ms doubling to 1 s, reset when a new connection answers a read) until a master (a promoted
///    replica) serves their slots, then each key is read from its lowest watch position, so nothing
///    is lost or repeated.
/// 5. Every `healthInterval` each connection is pinged (one unanswered for a whole interval closes
///    it) and the topology is refreshed, so a slot that moved while its key was idle is followed.
/// 6. A reply that is not a well-formed stream reply of at most `batchSize` entries closes the
///    connection (`StreamReplyError`): memory per key is one batch, whatever the stream holds.
///
/// Needs Redis 6 or later (RESP3 and client tracking), with `tracking-table-max-keys` (1 M by
/// default, 0 = no limit) above the distinct keys watched on one master: past it Redis evicts keys
/// from its table with an `invalidate` push each, which costs spurious reads, not entries.
/// Loop-confined: every call on `loop`, every handler run there.
package final class RedisStreamReader: @unchecked Sendable {  // Sendable: loop-confined, reached through `loop`.
    /// Names one watch, for `unwatch`.
    package struct WatchID: Hashable, Sendable {
        let raw: UInt64
    }

    /// Counts of what the reader did, for tests and metrics.
    package struct Stats: Sendable, Equatable {
        package var reads = 0
        package var entries = 0
        /// `invalidate` pushes that named a watched key.
        package var wakeups = 0
        package var moved = 0
        package var asked = 0
        package var refreshes = 0
        package var connections = 0
        package var connectionsLost = 0
        package var malformedReplies = 0
        /// Reads answered by an error that is not a redirect (`WRONGTYPE`).
        package var failedReads = 0
    }

    /// The loop everything runs on.
    package let loop: EventLoop
    /// Seeds, AUTH and TLS, as for `RedisClusterClient`.
    package let options: RedisClusterClient.Options
    /// Most entries one read asks for (`COUNT`), and so most handed to a handler at once.
    package let batchSize: Int
    /// Seconds between health checks and topology refreshes (rule 5).
    package let healthInterval: Double
    /// Counters; read on the loop.
    package private(set) var stats = Stats()

    private var keys: [String: WatchedKey] = [:]
    private var watchKeys: [UInt64: WatchedKey] = [:]
    private var handlers: [UInt64: ([StreamEntry]) -> Void] = [:]
    private var nextWatch: UInt64 = 1
    private var links: [String: StreamLink] = [:]
    private var slots = [String?](repeating: nil, count: HashSlot.count)
    private var knownNodes: [String]
    private var control: RedisConnection?
    private var refreshing = false
    private var refreshTimer: TimerID?
    private var refreshDelay = 0.0
    private var healthTimer: TimerID?
    private var closed = false

    /// A reader on `loop`; it connects when the first key is watched.
    package init(
        options: RedisClusterClient.Options, loop: EventLoop, batchSize: Int = 256, healthInterval: Double = 5
    ) {
        precondition(batchSize > 0 && healthInterval > 0)
        self.options = options
        self.loop = loop
        self.batchSize = batchSize
        self.healthInterval = healthInterval
        knownNodes = options.seeds
    }

    // MARK: - Watches

    /// Hands `handler` the entries of stream `key` after `after`, in batches of at most `batchSize`,
    /// in id order, each once. Several watches may name one key; it is read once for all of them.
    @discardableResult
    package func watch(_ key: String, after: StreamID, handler: @escaping ([StreamEntry]) -> Void) -> WatchID {
        precondition(loop.inLoop, "RedisStreamReader.watch must be called on its loop")
        let id = nextWatch
        nextWatch += 1
        guard !closed else { return WatchID(raw: id) }
        let state: WatchedKey
        if let existing = keys[key] {
            state = existing
        } else {
            state = WatchedKey(name: key)
            keys[key] = state
        }
        state.watchers.add(id, after: after)
        handlers[id] = handler
        watchKeys[id] = state
        armHealth()
        read(state)
        return WatchID(raw: id)
    }

    /// Stops a watch: its handler is not called again. A key no watch names is no longer read.
    package func unwatch(_ watch: WatchID) {
        precondition(loop.inLoop, "RedisStreamReader.unwatch must be called on its loop")
        guard let state = watchKeys.removeValue(forKey: watch.raw) else { return }
        handlers[watch.raw] = nil
        state.watchers.remove(watch.raw)
        guard state.watchers.isEmpty else { return }
        keys[state.name] = nil
        if let node = state.node { links[node]?.keys.remove(state.name) }
        if let timer = state.retryTimer { loop.cancel(timer) }
    }

    /// Number of distinct keys watched.
    package var watchedKeyCount: Int { keys.count }

    /// The nodes the reader holds a connection to for reads, sorted.
    package var connectedNodes: [String] { links.keys.sorted() }

    /// Closes every connection; no handler runs afterwards. Must be called on the loop.
    package func shutdown() {
        precondition(loop.inLoop, "RedisStreamReader.shutdown must be called on its loop")
        closed = true
        if let refreshTimer { loop.cancel(refreshTimer) }
        if let healthTimer { loop.cancel(healthTimer) }
        for state in keys.values { if let timer = state.retryTimer { loop.cancel(timer) } }
        keys = [:]
        watchKeys = [:]
        handlers = [:]
        let open = links.values
        links = [:]
        for link in open { link.connection.fail(.shutDown) }
        control?.fail(.shutDown)
        control = nil
    }

    // MARK: - Reading

    /// Rule 1: reads `state` from its cursor, unless a read is in flight (then it reads again after).
    private func read(_ state: WatchedKey) {
        guard !closed, keys[state.name] === state else { return }
        if state.reading {
            state.dirty = true
            return
        }
        guard let cursor = state.watchers.cursor else { return }
        if let timer = state.retryTimer {
            loop.cancel(timer)
            state.retryTimer = nil
        }
        guard let address = state.askTarget ?? slots[state.slot], let link = link(to: address) else {
            detach(state)
            scheduleRefresh()
            return
        }
        if let old = state.node, old != address { links[old]?.keys.remove(state.name) }
        state.node = address
        link.keys.insert(state.name)
        state.reading = true
        state.dirty = false
        if state.askTarget != nil {
            link.connection.send([Array("ASKING".utf8)], waiter: .own { _ in })
            state.askTarget = nil
        }
        stats.reads += 1
        let command: [[UInt8]] = [
            Array("XREAD".utf8), Array("COUNT".utf8), Array(String(batchSize).utf8), Array("STREAMS".utf8),
            state.bytes, Array(cursor.description.utf8),
        ]
        link.connection.send(
            command,
            waiter: .own { [weak self] result in self?.readDone(state, from: cursor, on: link, result) })
    }

    private func readDone(
        _ state: WatchedKey, from cursor: StreamID, on link: StreamLink, _ result: Result<RESPValue, RedisError>
    ) {
        state.reading = false
        guard !closed, keys[state.name] === state else { return }
        switch result {
        case .success(let reply):
            let entries: [StreamEntry]
            do throws(StreamReplyError) {
                entries = try StreamReply.entries(of: state.bytes, in: reply, maxEntries: batchSize)
            } catch {
                stats.malformedReplies += 1
                link.connection.fail(.connectionLost("\(link.connection.address) sent a malformed reply: \(error)"))
                return
            }
            state.redirects = 0
            if !link.answered {
                link.answered = true
                refreshDelay = 0  // a new connection that answers ends the backoff
            }
            stats.entries += entries.count
            let deliveries = state.watchers.distribute(entries, readAfter: cursor)
            if entries.count >= batchSize || state.dirty { read(state) }
            for (id, batch) in deliveries { handlers[id]?(batch) }
        case .failure(.server(let text)):
            redirect(state, text, from: link)
        case .failure:
            break  // the connection broke: `linkClosed` detached the key and a refresh will read it again
        }
    }

    /// Rule 3.
    private func redirect(_ state: WatchedKey, _ text: String, from link: StreamLink) {
        let words = text.split(separator: " ", maxSplits: 3).map(String.init)
        switch words.first {
        case "MOVED", "ASK":
            state.redirects += 1
            guard words.count >= 3, let slot = Int(words[1]), (0..<HashSlot.count).contains(slot),
                state.redirects <= options.maxRedirects
            else {
                state.redirects = 0  // a fresh budget once the refresh has a new table
                detach(state)
                return scheduleRefresh()
            }
            let target = words[2].hasPrefix(":") ? hostOf(link.connection.address) + words[2] : words[2]
            if words[0] == "MOVED" {
                stats.moved += 1
                slots[slot] = target
                scheduleRefresh()
            } else {
                stats.asked += 1
                state.askTarget = target
            }
            read(state)
        case "TRYAGAIN", "CLUSTERDOWN", "LOADING", "MASTERDOWN", "READONLY":
            detach(state)
            scheduleRefresh()
        default:
            stats.failedReads += 1
            state.retryTimer = loop.schedule(after: healthInterval) { [weak self, weak state] in
                guard let self, let state else { return }
                state.retryTimer = nil
                read(state)
            }
        }
    }

    /// Rule 2.
    private func pushed(_ items: [RESPValue], on link: StreamLink) {
        guard items.count >= 2, items[0].string == "invalidate" else { return }
        let named: [WatchedKey]
        if case .null = items[1] {
            named = keys.values.filter { $0.node == link.connection.address }
        } else {
            named = (items[1].elements ?? []).compactMap { $0.string.flatMap { keys[$0] } }
        }
        for state in named {
            stats.wakeups += 1
            read(state)
        }
    }

    /// Takes `state` off its node: it is read again once a refresh routes its slot.
    private func detach(_ state: WatchedKey) {
        if let node = state.node { links[node]?.keys.remove(state.name) }
        state.node = nil
    }

    // MARK: - Connections

    private func link(to address: String) -> StreamLink? {
        if let existing = links[address] { return existing }
        guard let socketAddress = RedisClusterClient.socketAddress(address) else { return nil }
        let connection = RedisConnection(address: address, limits: options.limits)
        let link = StreamLink(connection: connection)
        connection.onClose = { [weak self, weak link] _, waiters, _, error in
            self?.linkClosed(link, waiters: waiters, error: error)
        }
        connection.onPush = { [weak self, weak link] items in
            guard let self, let link else { return }
            pushed(items, on: link)
        }
        links[address] = link
        do {
            try connection.open(socketAddress, options: options, on: loop)
        } catch {
            links[address] = nil
            return nil
        }
        stats.connections += 1
        connection.send(
            [Array("CLIENT".utf8), Array("TRACKING".utf8), Array("ON".utf8)],
            waiter: .own { [weak connection] result in
                // Without tracking no write would wake a read: a server refusing it cannot be used.
                if case .failure(.server(let text)) = result { connection?.fail(.server(text)) }
            })
        return link
    }

    /// Rule 4.
    private func linkClosed(_ link: StreamLink?, waiters: [RedisConnection.Waiter], error: RedisError) {
        if let link, links[link.connection.address] === link {
            links[link.connection.address] = nil
            stats.connectionsLost += 1
            for name in link.keys where keys[name]?.node == link.connection.address { keys[name]?.node = nil }
            link.keys = []
        }
        for waiter in waiters {
            if case .own(let handler) = waiter { handler(.failure(error)) }
        }
        scheduleRefresh()
    }

    /// Rule 5.
    private func armHealth() {
        guard healthTimer == nil, !closed else { return }
        healthTimer = loop.schedule(after: healthInterval) { [weak self] in
            guard let self else { return }
            healthTimer = nil
            guard !keys.isEmpty else {
                // Nothing watched: let the connections go until the next watch.
                let open = links.values
                links = [:]
                for link in open { link.connection.fail(.shutDown) }
                control?.fail(.shutDown)
                control = nil
                return
            }
            for link in links.values {
                if link.pingPending {
                    link.connection.fail(.timedOut)
                    continue
                }
                link.pingPending = true
                link.connection.send([Array("PING".utf8)], waiter: .own { [weak link] _ in link?.pingPending = false })
            }
            scheduleRefresh()
            armHealth()
        }
    }

    // MARK: - Topology

    private func scheduleRefresh() {
        guard !closed, !refreshing, refreshTimer == nil else { return }
        refreshTimer = loop.schedule(after: refreshDelay) { [weak self] in
            guard let self else { return }
            refreshTimer = nil
            var candidates = control.map { [$0.address] } ?? []
            for address in links.keys.sorted() + knownNodes where !candidates.contains(address) {
                candidates.append(address)
            }
            refresh(candidates: candidates)
        }
        refreshDelay = min(max(refreshDelay * 2, 0.05), 1)
    }

    /// Asks each candidate in turn for `CLUSTER SHARDS`, then `CLUSTER SLOTS`, until one answers.
    private func refresh(candidates: [String]) {
        guard !closed else { return }
        guard let address = candidates.first else {
            refreshing = false
            return scheduleRefresh()
        }
        refreshing = true
        stats.refreshes += 1
        let rest = Array(candidates.dropFirst())
        guard let connection = controlConnection(to: address) else { return refresh(candidates: rest) }
        let tls = options.tls != nil
        connection.queryTopology(address: address, tls: tls) { [weak self] topology in
            guard let self else { return }
            if let topology { adopt(topology) } else { refresh(candidates: rest) }
        }
    }

    /// The connection topology questions go on, kept open between refreshes.
    private func controlConnection(to address: String) -> RedisConnection? {
        if let control, control.address == address, control.stream?.isOpen == true { return control }
        control?.fail(.shutDown)
        control = nil
        guard let socketAddress = RedisClusterClient.socketAddress(address) else { return nil }
        let connection = RedisConnection(address: address, limits: options.limits)
        connection.onClose = { [weak self] closing, waiters, _, error in
            if self?.control === closing { self?.control = nil }
            for waiter in waiters {
                if case .own(let handler) = waiter { handler(.failure(error)) }
            }
        }
        do {
            try connection.open(socketAddress, options: options, on: loop)
        } catch {
            return nil
        }
        control = connection
        return connection
    }

    /// Routes every key by the new table: keys off their master's connection are read there.
    private func adopt(_ topology: ClusterTopology) {
        refreshing = false
        slots = topology.slotTable()
        var nodes = topology.addresses
        for seed in options.seeds where !nodes.contains(seed) { nodes.append(seed) }
        knownNodes = nodes
        for state in Array(keys.values) {
            let attached = state.node.map { links[$0] != nil } ?? false
            if attached && state.node == slots[state.slot] { continue }
            if state.reading { state.dirty = true } else { read(state) }
        }
        for (address, link) in links where link.keys.isEmpty && link.connection.inFlight == 0 {
            links[address] = nil
            link.connection.fail(.shutDown)
        }
    }

    private func hostOf(_ address: String) -> String {
        guard let colon = address.lastIndex(of: ":") else { return address }
        return String(address[..<colon])
    }
}

/// One watched key: its watches, where it is read, and whether a read is under way. Loop-confined.
private final class WatchedKey {
    let name: String
    let bytes: [UInt8]
    let slot: Int
    var watchers = StreamWatchers()
    /// The node the last read went to (where tracking is registered); nil while unrouted.
    var node: String?
    /// An `ASK` target for the next read only.
    var askTarget: String?
    var redirects = 0
    var reading = false
    /// A push or a new watch came while reading: read again when the reply is in.
    var dirty = false
    var retryTimer: TimerID?

    init(name: String) {
        self.name = name
        bytes = Array(name.utf8)
        slot = HashSlot.slot(of: bytes)
    }
}

/// A dedicated read connection to one master and the keys read on it. Loop-confined.
private final class StreamLink {
    let connection: RedisConnection
    var keys: Set<String> = []
    var pingPending = false
    /// A read on it was answered: the route works.
    var answered = false

    init(connection: RedisConnection) { self.connection = connection }
}
