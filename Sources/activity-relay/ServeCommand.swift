import Foundation
import RelayServer
import Synchronization

/// `activity-relay serve [--config FILE] [--listen HOST:PORT] [--data DIR] [--clock system|virtual] [--threads N]`:
/// runs the relay until SIGTERM or SIGINT, then shuts down gracefully (stops accepting, sends
/// GOAWAY, lets in-flight requests finish) and exits 0. Bad flags or config: one line, exit 2.
enum ServeCommand {
    static func run(_ arguments: [String]) -> Int32 {
        let configuration: RelayConfiguration
        do {
            configuration = try RelayConfiguration.parse(arguments: arguments)
        } catch {
            Terminal.fail(error.description)
        }
        RelayLog.setLevel(RelayLog.Level(name: configuration.logLevel.rawValue) ?? .info)
        RelayLog.setFormat(configuration.logFormat)
        // The configured keys are read first: a config that fails to load leaves no new data directory.
        let configuredKeys: [ProviderKeyring.Key]
        do {
            configuredKeys = try ProviderKeyring.configuredKeys(configuration)
        } catch {
            Terminal.fail("activity-relay serve: \(error)")
        }
        let directory: DataDirectory
        let keyring: ProviderKeyring
        do {
            directory = try DataDirectory.prepare(configuration)
        } catch {
            Terminal.fail("activity-relay serve: \(error)")
        }
        do {
            keyring = try ProviderKeyring(configured: configuredKeys, developmentKey: directory.devProviderKey)
        } catch {
            directory.removeIfCreated()
            Terminal.fail("activity-relay serve: \(error)")
        }
        for warning in directory.warnings { RelayLog.warning("data.warning", ["message": warning]) }
        // Signals are blocked before any other thread starts, so every thread inherits the mask and
        // SIGTERM/SIGINT reach the signalfd instead of killing the process mid-commit.
        let started = Mutex<RelayRuntime?>(nil)
        let done = DispatchSemaphore(value: 0)
        let watcher: ShutdownSignals
        do {
            watcher = try ShutdownSignals { signal in
                RelayLog.info("relay.shutdown", ["signal": String(signal)])
                guard let runtime = started.withLock({ $0 }) else { exit(0) }
                Thread.detachNewThread {
                    runtime.shutdown(gracePeriod: 10)
                    done.signal()
                }
            }
        } catch {
            Terminal.fail("activity-relay serve: cannot watch signals: \(error)")
        }
        var options = RelayRuntime.Options(
            certificatePath: directory.certificatePath, privateKeyPath: directory.privateKeyPath,
            databasePath: directory.databasePath,
            routeSettings: RouteSettings(
                adminKey: directory.adminKey, keyring: keyring, stream: configuration.stream,
                providerRefusalLimit: configuration.providerRefusalLimit,
                broadcastBundleIDs: configuration.broadcastBundleIDs,
                devProviderKey: DevProviderKey(
                    teamID: DataDirectory.devTeamID, keyID: DataDirectory.devKeyID, key: directory.devProviderKey),
                faults: configuration.faults.injector(), console: configuration.console))
        options.host = configuration.listen.host
        options.port = configuration.listen.port
        options.clockMode = configuration.clock == .virtual ? .virtual : .system
        options.threads = configuration.threads
        options.rules = configuration.rules
        options.httpLimits = configuration.http
        options.httpLimits.streamBufferBytes = configuration.stream.bufferBytes
        options.serverLimits = configuration.http.serverLimits
        options.healthHost = configuration.healthListen?.host
        options.healthPort = configuration.healthListen?.port ?? 0
        options.retention = RelayService.Retention(
            events: configuration.retention.events, pushes: configuration.retention.pushes)
        options.durability = configuration.durability.storeDurability
        options.metricsListen = configuration.metricsListen.map { ($0.host, $0.port) }
        if var cluster = configuration.cluster {
            cluster.replicas = configuration.durability.replicas
            cluster.replicaTimeoutMs = max(1, Int((configuration.durability.replicaTimeout * 1000).rounded()))
            options.cluster = cluster
        }
        let runtime: RelayRuntime
        do {
            runtime = try RelayRuntime.start(options)
        } catch {
            directory.removeIfCreated()
            Terminal.fail("activity-relay serve: \(error)")
        }
        RelayLog.info(
            "relay.listening",
            [
                "address": "\(configuration.listen.host):\(runtime.port)", "clock": options.clockMode.rawValue,
                "threads": String(options.threads), "keys": keyring.keyIDs.joined(separator: ","),
                "allocator": Allocator.description, "sync": configuration.durability.description,
                "store": configuration.cluster.map { "redis-cluster:" + $0.seeds.joined(separator: ",") } ?? "sqlite",
            ])
        if let healthListen = configuration.healthListen, let port = runtime.healthPort {
            RelayLog.info("relay.health.listening", ["address": "\(healthListen.host):\(port)"])
        }
        if let metricsPort = runtime.metricsPort, let listen = configuration.metricsListen {
            RelayLog.info("relay.metrics.listening", ["address": "\(listen.host):\(metricsPort)"])
        }
        // In JSON mode the startup notes are log lines too, so that every line of stderr parses.
        for line in directory.startupLines(port: runtime.port) {
            if configuration.logFormat == .json {
                RelayLog.info("relay.startup", ["message": line])
            } else {
                Terminal.error(line)
            }
        }
        started.withLock { $0 = runtime }
        done.wait()
        watcher.stop()
        RelayLog.info("relay.stopped")
        return 0
    }
}
