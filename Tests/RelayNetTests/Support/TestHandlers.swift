import Foundation
import RelayNet

/// A thread-safe log of what handlers saw, for tests to assert on from the test thread.
final class HandlerLog: @unchecked Sendable {  // Sendable: every field is guarded by `lock`.
    private let lock = NSLock()
    private var entries: [String] = []
    private var errors: [String] = []
    private var tracked: [() -> AnyObject?] = []

    /// Appends an event such as `ready h2` or `closed`.
    func record(_ entry: String) { lock.withLock { entries.append(entry) } }
    /// Appends an error description (handshake failures, close errors).
    func recordError(_ error: any Error) { lock.withLock { errors.append(String(describing: error)) } }

    /// Remembers `object` weakly, to check later that it was deallocated.
    func track(_ object: AnyObject) {
        lock.withLock { tracked.append { [weak object] in object } }
    }

    /// How many tracked objects are still alive.
    var liveTrackedCount: Int { lock.withLock { tracked.filter { $0() != nil }.count } }

    var events: [String] { lock.withLock { entries } }
    var errorDescriptions: [String] { lock.withLock { errors } }

    /// Number of events equal to `entry`.
    func count(_ entry: String) -> Int { lock.withLock { entries.filter { $0 == entry }.count } }

    /// Polls `condition` until it holds or `timeout` passes; returns whether it held.
    func waitFor(timeout: Double = 10, _ condition: (HandlerLog) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(self) { return true }
            usleep(5_000)
        }
        return condition(self)
    }
}

/// Echoes every byte back; on shutdown says `bye` and closes after flushing.
final class EchoHandler: ConnectionHandler {
    private let log: HandlerLog

    init(log: HandlerLog) { self.log = log }

    func connectionReady(_ connection: Connection) {
        log.track(connection)
        log.record("ready \(connection.alpnProtocol ?? "-")")
    }

    func connection(_ connection: Connection, received bytes: [UInt8]) {
        log.record("received \(String(decoding: bytes, as: UTF8.self))")
        connection.write(bytes)
    }

    func connectionWritable(_ connection: Connection) { log.record("writable") }

    func connectionClosed(_ connection: Connection, error: (any Error)?) {
        log.record("closed")
        if let error { log.recordError(error) }
    }

    func shutdownRequested(_ connection: Connection) {
        log.record("shutdown requested")
        connection.write(Array("bye".utf8))
        connection.closeAfterFlush()
    }
}

/// Answers one HTTP/1.1 request with `200 hello` and closes: just enough HTTP for curl.
final class TinyHTTPHandler: ConnectionHandler {
    private var request: [UInt8] = []

    func connectionReady(_ connection: Connection) {}

    func connection(_ connection: Connection, received bytes: [UInt8]) {
        request += bytes
        guard request.count <= 16 * 1024 else { return connection.close() }
        guard String(decoding: request, as: UTF8.self).contains("\r\n\r\n") else { return }
        let body = "hello over \(connection.alpnProtocol ?? "no ALPN")\n"
        let head =
            "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: \(body.utf8.count)\r\n"
            + "connection: close\r\n\r\n"
        connection.write(Array((head + body).utf8))
        connection.closeAfterFlush()
    }

    func connectionWritable(_ connection: Connection) {}
    func connectionClosed(_ connection: Connection, error: (any Error)?) {}
    func shutdownRequested(_ connection: Connection) { connection.closeAfterFlush() }
}

/// A started server over a fresh group, torn down by `stop`.
struct RunningServer {
    let group: EventLoopGroup
    let server: TLSServer
    let port: UInt16
    let log: HandlerLog

    /// Starts an echo (or custom) server on 127.0.0.1 port 0 with `limits`.
    static func start(
        threads: Int = 2, limits: ServerLimits = ServerLimits(), host: String = "127.0.0.1",
        handler: (@Sendable (HandlerLog) -> any ConnectionHandler)? = nil
    ) throws -> RunningServer {
        let group = try EventLoopGroup(threads: threads)
        let log = HandlerLog()
        let server = TLSServer(group: group, tls: try TestCertificate.context(), limits: limits) {
            handler?(log) ?? EchoHandler(log: log)
        }
        server.onHandshakeFailure { _, error in log.recordError(error) }
        let port = try server.bind(host: host, port: 0)
        return RunningServer(group: group, server: server, port: port, log: log)
    }

    /// Shuts the server down and stops the loops.
    func stop() {
        server.beginShutdown(gracePeriod: 1)
        _ = server.waitUntilClosed(timeout: 10)
        group.shutdown()
    }
}
