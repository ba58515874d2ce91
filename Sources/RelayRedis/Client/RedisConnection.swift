import RelayNet

/// One connection to one Redis node: commands are written as they come (pipelined, many in flight)
/// and replies are matched to them in order, which is the order Redis answers in.
///
/// The greeting `HELLO 3` (with `AUTH user password` when configured) goes first, pipelined ahead of
/// whatever follows; a server refusing `HELLO` stays on RESP2 after a plain `AUTH`. Pushes (`>`) are
/// not replies: they go to `onPush` (tracking invalidations, for `RedisStreamReader`) and are
/// otherwise skipped. Loop-confined.
final class RedisConnection: LoopStreamDelegate {
    /// What a reply is for.
    enum Waiter {
        /// A caller's command.
        case request(RedisRequest)
        /// The client's own command (greeting, topology), with its own handler.
        case own((Result<RESPValue, RedisError>) -> Void)
    }

    /// The node, `host:port`.
    let address: String
    private(set) var stream: LoopStream?
    private var parser: RESPParser
    private var waiters: [Waiter] = []
    private var head = 0
    private var connected = false
    /// Told once when the connection ends, with the waiters not yet answered and whether the
    /// connection ever came up (if not, nothing reached the server).
    var onClose: ((RedisConnection, [Waiter], _ reachedServer: Bool, _ error: RedisError) -> Void)?
    /// Told about each push (`>`) the server sends between replies.
    var onPush: (([RESPValue]) -> Void)?

    init(address: String, limits: RESPLimits) {
        self.address = address
        parser = RESPParser(limits: limits)
    }

    /// Opens the stream and pipelines the greeting.
    func open(
        _ socketAddress: SocketAddress, options: RedisClusterClient.Options, on loop: EventLoop
    ) throws {
        let tls = options.tls.map { ($0, options.tlsServerName ?? socketAddress.host) }
        stream = try LoopStream.connect(
            to: socketAddress, tls: tls, on: loop, timeout: options.connectTimeout, delegate: self)
        var hello = ["HELLO", "3"]
        if let password = options.password { hello += ["AUTH", options.user ?? "default", password] }
        send(
            hello.map { Array($0.utf8) },
            waiter: .own { [weak self] result in
                guard let self, case .failure(let error) = result else { return }
                // Redis before 6 has no HELLO: go on in RESP2 and authenticate the old way.
                if case .server(let text) = error, text.uppercased().hasPrefix("ERR UNKNOWN"),
                    let password = options.password
                {
                    let auth = options.user.map { ["AUTH", $0, password] } ?? ["AUTH", password]
                    send(
                        auth.map { Array($0.utf8) },
                        waiter: .own { [weak self] result in
                            if case .failure(let error) = result { self?.fail(error) }
                        })
                } else if case .server(let text) = error, !text.uppercased().hasPrefix("ERR UNKNOWN") {
                    fail(error)  // a wrong password: every command after it would be refused too
                }
            })
    }

    /// Writes a command; its reply goes to `waiter`.
    func send(_ arguments: [[UInt8]], waiter: Waiter) {
        guard let stream, stream.isOpen else {
            onClose?(self, [waiter], connected, .connectionLost("not connected to \(address)"))
            return
        }
        waiters.append(waiter)
        stream.write(RESPEncoder.command(arguments))
    }

    /// Commands written and not yet answered.
    var inFlight: Int { waiters.count - head }

    /// The oldest unanswered caller request, for deadline checks.
    var oldestRequest: RedisRequest? {
        for index in head..<waiters.count { if case .request(let request) = waiters[index] { return request } }
        return nil
    }

    /// Closes the connection; unanswered waiters are handed to `onClose`.
    func fail(_ error: RedisError) {
        guard let stream, stream.isOpen else { return }
        pendingError = error
        stream.close()
    }

    private var pendingError: RedisError?

    // MARK: - LoopStreamDelegate

    func streamConnected(_ stream: LoopStream) {
        connected = true
    }

    func stream(_ stream: LoopStream, received bytes: [UInt8]) {
        parser.append(bytes)
        while stream.isOpen {
            let value: RESPValue
            do throws(RESPError) {
                guard let next = try parser.next() else { return }
                value = next
            } catch {
                fail(.protocolViolation(error))
                return
            }
            if case .push(let items) = value {
                onPush?(items)
                continue
            }
            guard head < waiters.count else {
                fail(.protocolViolation(RESPError(reason: .unknownType, offset: 0)))
                return
            }
            let waiter = waiters[head]
            head += 1
            if head == waiters.count {
                waiters.removeAll(keepingCapacity: waiters.count <= 4096)
                head = 0
            } else if head >= 4096 && head * 2 >= waiters.count {
                waiters.removeSubrange(0..<head)
                head = 0
            }
            let result: Result<RESPValue, RedisError>
            if case .error(let text) = value { result = .failure(.server(text)) } else { result = .success(value) }
            switch waiter {
            case .request(let request): request.deliver(result, from: self)
            case .own(let handler): handler(result)
            }
        }
    }

    func streamClosed(_ stream: LoopStream, error: (any Error)?) {
        let left = Array(waiters[head...])
        waiters = []
        head = 0
        let reason =
            pendingError ?? .connectionLost(error.map { "\(address): \($0)" } ?? "\(address) closed the connection")
        onClose?(self, left, connected, reason)
    }
}
