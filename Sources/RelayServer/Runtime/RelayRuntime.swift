public import RelayCore
public import RelayNet
package import RelayStore
import Synchronization

/// A running relay: event loops, the TLS listener, the service and its ticker.
public final class RelayRuntime: Sendable {
    /// Everything the runtime needs, already validated (the command line builds it from the configuration).
    public struct Options: Sendable {
        public var host = "127.0.0.1"
        public var port: UInt16 = 8443
        package var certificatePath: String
        package var privateKeyPath: String
        package var databasePath: String
        package var clockMode: RelayTimeSource.Mode = .system
        public var threads = 2
        package var rules = RelayRules.defaults
        package var httpLimits = HTTPLimits()
        public var serverLimits = ServerLimits()
        /// Where the health-only listener binds (`healthListen`), or nil for none.
        package var healthHost: String?
        /// Its port (0 picks a free one).
        package var healthPort: UInt16 = 0
        /// Where the unauthenticated `/metrics` listener binds (`metrics.listen`); nil for none.
        package var metricsListen: (host: String, port: UInt16)?
        package var retention = RelayService.Retention()
        /// When acknowledged requests reach the disk; kill -9 never loses one either way.
        package var durability = DurabilitySettings().storeDurability
        /// How often timed transitions are checked for (seconds of real time).
        package var tickInterval = 0.1
        /// Cluster mode's Redis Cluster; nil keeps the fleet in the database.
        package var cluster: ClusterSettings?
        /// Keys and settings handed to the routes.
        package var routeSettings: RouteSettings
        /// Builds the route groups for a service; the default is every surface of the relay.
        public var routes: @Sendable (RelayService, RouteSettings) -> [any RouteGroup] = DefaultRoutes.all

        public init(certificatePath: String, privateKeyPath: String, databasePath: String, routeSettings: RouteSettings)
        {
            self.routeSettings = routeSettings
            self.certificatePath = certificatePath
            self.privateKeyPath = privateKeyPath
            self.databasePath = databasePath
        }
    }

    package let service: RelayService
    package let group: EventLoopGroup
    package let server: TLSServer
    /// The listener that answers only `GET /healthz`, when configured.
    package let healthServer: TLSServer?
    /// Its bound port, when configured.
    package let healthPort: UInt16?
    /// The metrics listener, serving only `/metrics` without a key, when configured.
    package let metricsServer: TLSServer?
    /// Its bound port, when configured.
    package let metricsPort: UInt16?
    /// The bound port (useful with port 0).
    public let port: UInt16
    private let tickTimer = Mutex<TimerID?>(nil)
    private let stopped = Atomic<Bool>(false)

    private init(
        service: RelayService, group: EventLoopGroup, server: TLSServer, port: UInt16,
        health: (server: TLSServer, port: UInt16)?, metrics: (server: TLSServer, port: UInt16)?
    ) {
        self.service = service
        self.group = group
        self.server = server
        self.port = port
        healthServer = health?.server
        healthPort = health?.port
        metricsServer = metrics?.server
        metricsPort = metrics?.port
    }

    /// Connection slots of the health-only and metrics listeners: a few monitors or scrapers,
    /// never the main listener's.
    static let healthConnections = 64

    /// Opens the store, restores state, binds the listener and starts serving.
    public static func start(_ options: Options, ids: any IdentifierGenerator = SecureIdentifiers()) throws
        -> RelayRuntime
    {
        let service: RelayService
        do {
            service = try RelayService.open(
                path: options.databasePath, rules: options.rules, clockMode: options.clockMode, ids: ids,
                retention: options.retention, durability: options.durability, cluster: options.cluster)
        } catch let error as RelayStartError {
            throw error
        } catch {
            throw RelayStartError.store(path: options.databasePath, message: "\(error)")
        }
        let group = try EventLoopGroup(threads: max(1, options.threads))
        let tls = try TLSContext(
            TLSConfiguration(certificateChainPath: options.certificatePath, privateKeyPath: options.privateKeyPath))
        let router = Router(groups: options.routes(service, options.routeSettings))
        let server = Self.server(group: group, tls: tls, limits: options.serverLimits, options: options, router)
        let refusals = RefusalReporter()
        server.onRefusal { [weak server] reason, peer in
            refusals.report(reason, peer: peer, total: server?.refusedConnections ?? 0)
        }
        let faults = options.routeSettings.faults
        server.onAccept { peer in
            guard faults.hasHandshakeRules, let rule = faults.refusesHandshake() else { return true }
            RelayLog.info("fault.handshakeRefused", ["peer": peer, "rule": rule.id])
            return false
        }
        let port: UInt16
        var health: (server: TLSServer, port: UInt16)?
        var metrics: (server: TLSServer, port: UInt16)?
        do {
            port = try server.bind(host: options.host, port: options.port)
            var monitorLimits = options.serverLimits
            monitorLimits.maxConnections = healthConnections
            monitorLimits.maxConnectionsPerAddress = healthConnections
            if let healthHost = options.healthHost {
                let healthRouter = Router(groups: [HealthRoutes(service: service)])
                let healthServer = Self.server(
                    group: group, tls: tls, limits: monitorLimits, options: options, healthRouter)
                healthServer.onRefusal { reason, peer in refusals.report(reason, peer: peer, total: 0) }
                health = (healthServer, try healthServer.bind(host: healthHost, port: options.healthPort))
            }
            if let listen = options.metricsListen {
                let metricsRouter = Router(groups: MetricsListenerRoutes.all(service: service))
                let metricsServer = Self.server(
                    group: group, tls: tls, limits: monitorLimits, options: options, metricsRouter)
                metricsServer.onRefusal { reason, peer in refusals.report(reason, peer: peer, total: 0) }
                metrics = (metricsServer, try metricsServer.bind(host: listen.host, port: listen.port))
            }
        } catch {
            health?.server.beginShutdown(gracePeriod: 0)
            server.beginShutdown(gracePeriod: 0)
            _ = server.waitUntilClosed(timeout: 1)
            group.shutdown()
            service.store.close()
            throw RelayStartError.listen(host: options.host, port: options.port, message: "\(error)")
        }
        let runtime = RelayRuntime(
            service: service, group: group, server: server, port: port, health: health, metrics: metrics)
        runtime.startTicker(every: options.tickInterval)
        return runtime
    }

    /// A TLS listener answering with `router`, its handshakes counted in `RelayMetrics`.
    private static func server(
        group: EventLoopGroup, tls: TLSContext, limits serverLimits: ServerLimits, options: Options, _ router: Router
    ) -> TLSServer {
        let limits = options.httpLimits
        let refresh = options.rules.providerTokenRefreshInterval
        let server = TLSServer(group: group, tls: tls, limits: serverLimits) {
            RelayMetrics.shared.countHandshake()
            return HTTPConnectionHandler(responder: router, limits: limits, providerTokenRefreshInterval: refresh)
        }
        server.onHandshakeFailure { peer, error in
            RelayMetrics.shared.countHandshakeFailure(error)
            RelayLog.debug("tls.handshake.failed", ["peer": peer, "error": "\(error)"])
        }
        return server
    }

    /// Applies due transitions on a loop timer so they fire without waiting for a request.
    private func startTicker(every interval: Double) {
        let loop = group.loops[0]
        loop.execute { [self] in self.tick(loop: loop, interval: interval) }
    }

    private func tick(loop: EventLoop, interval: Double) {
        guard !stopped.load(ordering: .relaxed) else { return }
        service.tick()
        let id = loop.schedule(after: interval) { [self] in self.tick(loop: loop, interval: interval) }
        tickTimer.withLock { $0 = id }
    }

    /// Stops accepting, lets in-flight requests finish (HTTP/2 peers get GOAWAY), then stops the
    /// loops and closes the store once everything acknowledged is durable.
    public func shutdown(gracePeriod: Double = 10) {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        server.beginShutdown(gracePeriod: gracePeriod)
        healthServer?.beginShutdown(gracePeriod: gracePeriod)
        metricsServer?.beginShutdown(gracePeriod: 0)
        _ = server.waitUntilClosed(timeout: gracePeriod + 1)
        _ = healthServer?.waitUntilClosed(timeout: 1)
        _ = metricsServer?.waitUntilClosed(timeout: 1)
        service.shutdownCluster()
        group.shutdown()
        service.store.writer.flush()
        let statistics = service.store.writer.currentStatistics
        RelayLog.info(
            "store.stats",
            [
                "commits": String(statistics.commits), "batches": String(statistics.batches),
                "syncs": String(statistics.syncs), "checkpoints": String(statistics.checkpoints),
            ])
        service.store.close()
    }
}
