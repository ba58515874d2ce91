import Foundation
import RelayCore
import RelayHTTP
import RelayNet
import RelayServer
import RelayTestKit
import XCTest

/// A relay running in this process on port 0 with a fresh data directory and a self-signed
/// certificate, for tests that drive it with real clients. `stop()` removes the directory when the
/// relay made it, never one the caller passed in.
final class LiveRelay {
    let runtime: RelayRuntime
    let directory: URL
    private let ownsDirectory: Bool
    let caPath: String
    /// The development provider key (team DEVTEAM000, key DEVKEY0000, any bundle ID).
    let devKey: P256PrivateKey
    /// The admin key.
    static let adminKey = "test-admin-key-0123456789"
    /// In cluster mode, the loop the test's own commands run on (cluster mode serves commands
    /// from event loops only); nil on SQLite.
    let driver: EventLoop?
    var port: UInt16 { runtime.port }
    var base: String { "https://localhost:\(port)" }

    init(
        directory: URL? = nil, extraRoutes: [any RouteGroup] = [],
        configure: (inout RelayRuntime.Options) -> Void = { _ in }
    ) throws {
        ownsDirectory = directory == nil
        let directory =
            directory
            ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("relay-test-\(UUID().uuidString)")
        let fresh = !FileManager.default.fileExists(atPath: directory.appendingPathComponent("relay.sqlite").path)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
        let cert = directory.appendingPathComponent("tls-cert.pem").path
        let key = directory.appendingPathComponent("tls-key.pem").path
        _ = try SelfSignedCertificate.ensure(certificatePath: cert, keyPath: key)
        caPath = cert
        let devKey = try P256PrivateKey()
        self.devKey = devKey
        let keyring = ProviderKeyring(keys: [
            ProviderKeyring.Key(
                teamID: "DEVTEAM000", keyID: "DEVKEY0000", publicKey: try devKey.publicKey, bundleIDs: .any)
        ])
        var options = RelayRuntime.Options(
            certificatePath: cert, privateKeyPath: key,
            databasePath: directory.appendingPathComponent("relay.sqlite").path,
            routeSettings: RouteSettings(
                adminKey: AdminKey(Self.adminKey)!, keyring: keyring,
                devProviderKey: DevProviderKey(teamID: "DEVTEAM000", keyID: "DEVKEY0000", key: devKey)))
        options.port = 0
        options.threads = 2
        let extras = extraRoutes
        options.routes = { service, settings in DefaultRoutes.all(service: service, settings: settings) + extras }
        try StoreUnderTest.prepare(&options, fresh: fresh)
        configure(&options)
        driver = options.cluster == nil ? nil : try EventLoop(name: "test-driver")
        runtime = try RelayRuntime.start(options)
    }

    func stop() {
        runtime.shutdown(gracePeriod: 2)
        driver?.stop()
        if ownsDirectory { try? FileManager.default.removeItem(at: directory) }
    }

    /// Runs `work` where the service takes commands: on the driver loop in cluster mode, else here.
    func drive(_ work: @escaping @Sendable () -> Void) {
        if let driver { driver.execute(work) } else { work() }
    }

    /// Runs curl against the relay, trusting its certificate; returns the outcome.
    func curl(_ arguments: [String], timeout: Double = 30) throws -> ChildProcess.Outcome {
        try ChildProcess.run(["curl", "-sS", "--cacert", caPath, "--max-time", "20"] + arguments, timeout: timeout)
    }
}

/// Test-only routes: `POST /echo` answers 200 with the request body, `GET /bytes?n=` answers n bytes.
struct EchoRoutes: RouteGroup {
    func owns(_ path: String) -> Bool { path == "/echo" || path == "/bytes" }

    func handle(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        if request.bodyTooLarge {
            respond(.full(JSONResponse.error(413, "tooLarge", "body too large")))
            return
        }
        if request.request.path == "/bytes" {
            let count = min(Int(request.request.queryValue("n") ?? "") ?? 100, 10_000_000)
            respond(.full(HTTPResponse(status: 200, body: [UInt8](repeating: UInt8(ascii: "x"), count: count))))
            return
        }
        respond(.full(HTTPResponse(status: 200, body: request.request.body)))
    }
}

/// Where test fixtures live.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// The package's root folder.
    static let repositoryRoot = directory.deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
}
