import Foundation
import RelayNet
import RelayServer

// bench-engine-server --port N --cert PEM --key PEM [--threads N] [--max-connections N]
//
// Runs the relay's runtime (TLS, HTTP/1.1 + HTTP/2, router, service on a throwaway database) with
// only the benchmark route, until SIGTERM or SIGINT. Prints `listening PORT` once it accepts.

/// The command line, checked.
struct Arguments {
    static let usage =
        "usage: bench-engine-server --port N --cert PEM --key PEM [--threads N] [--max-connections N]"

    var port: UInt16 = 0
    var certificate = ""
    var key = ""
    var threads = ProcessInfo.processInfo.activeProcessorCount
    var maxConnections = 20_000

    /// Parses `--flag value` pairs; threads default to the number of cores.
    init(_ arguments: [String]) throws(Usage) {
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { throw Usage(message: "\(flag) needs a value") }
            switch flag {
            case "--port": port = try Self.number(flag, value, UInt16.self)
            case "--cert": certificate = value
            case "--key": key = value
            case "--threads": threads = try Self.number(flag, value, Int.self)
            case "--max-connections": maxConnections = try Self.number(flag, value, Int.self)
            default: throw Usage(message: "unknown option \(flag)")
            }
        }
        guard !certificate.isEmpty, !key.isEmpty else { throw Usage(message: "--cert and --key are required") }
        guard threads >= 1, maxConnections >= 1 else {
            throw Usage(message: "--threads and --max-connections must be positive")
        }
    }

    private static func number<T: FixedWidthInteger>(_ flag: String, _ text: String, _: T.Type) throws(Usage) -> T {
        guard let value = T(text) else { throw Usage(message: "\(flag): not a number: \(text)") }
        return value
    }
}

/// A command-line mistake, with what was wrong.
struct Usage: Error {
    let message: String
}

let arguments: Arguments
do {
    arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("bench-engine-server: \(error.message)\n\(Arguments.usage)\n".utf8))
    exit(2)
}

/// Prints `message` on standard error and exits with status 1.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("bench-engine-server: \(message)\n".utf8))
    exit(1)
}

// Signals first, before any other thread exists, so every thread inherits them blocked.
let stopRequested = DispatchSemaphore(value: 0)
let signalLoop: EventLoop
let watcher: SignalWatcher
do {
    signalLoop = try EventLoop(name: "bench-signals")
    watcher = try SignalWatcher(loop: signalLoop) { _ in stopRequested.signal() }
} catch {
    fail("cannot watch signals: \(error)")
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-engine-\(getpid())")
RelayLog.setLevel(.warning)
// The bench route needs no keys: an admin key no client is given, and no provider keys.
let adminKey: AdminKey
do {
    adminKey = try AdminKey.generate()
} catch {
    fail("cannot make an admin key: \(error)")
}
var options = RelayRuntime.Options(
    certificatePath: arguments.certificate, privateKeyPath: arguments.key,
    databasePath: directory.appendingPathComponent("relay.sqlite").path,
    routeSettings: RouteSettings(adminKey: adminKey, keyring: ProviderKeyring(keys: [])))
options.host = "127.0.0.1"
options.port = arguments.port
options.threads = arguments.threads
options.serverLimits.maxConnections = arguments.maxConnections
options.serverLimits.maxConnectionsPerAddress = arguments.maxConnections  // every client is on loopback
options.routes = { _, _ in [BenchRoutes()] }

let runtime: RelayRuntime
do {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    runtime = try RelayRuntime.start(options)
} catch {
    try? FileManager.default.removeItem(at: directory)
    fail("cannot start: \(error)")
}
FileHandle.standardOutput.write(Data("listening \(runtime.port) threads \(arguments.threads)\n".utf8))

stopRequested.wait()
runtime.shutdown(gracePeriod: 1)
watcher.stop()
signalLoop.stop()
signalLoop.waitUntilStopped()
try? FileManager.default.removeItem(at: directory)
