import RelayCore
import RelayJSON
import RelayNet
import RelayServer
import XCTest

final class DataDirectoryTests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws { scratch = try ScratchDirectory() }
    override func tearDown() { scratch.remove() }

    private func configuration(_ data: String = "nested/data", _ flags: [String] = []) throws -> RelayConfiguration {
        try RelayConfiguration.parse(arguments: ["--data", data] + flags, workingDirectory: scratch.path)
    }

    private let secretNames = ["tls-key.pem", "admin-key", "dev-provider-key.p8"]
    private let allNames = ["tls-cert.pem", "tls-key.pem", "admin-key", "dev-provider-key.p8"]

    func testFirstStartCreatesEveryFileWithPrivateModes() throws {
        let directory = try DataDirectory.prepare(configuration())
        XCTAssertTrue(directory.createdDirectory)
        XCTAssertEqual(directory.path, scratch.path + "/nested/data")
        XCTAssertEqual(try scratch.mode("nested/data"), 0o700)
        for name in secretNames { XCTAssertEqual(try scratch.mode("nested/data/" + name), 0o600, name) }
        XCTAssertEqual(try scratch.mode("nested/data/tls-cert.pem"), 0o644)
        XCTAssertEqual(directory.files.map(\.role), [.certificate, .privateKey, .adminKey, .devProviderKey, .database])
        XCTAssertEqual(directory.files.map(\.status), [.created, .created, .created, .created, .new])
        XCTAssertEqual(directory.files.filter(\.isSecret).map(\.role), [.privateKey, .adminKey, .devProviderKey])
        XCTAssertEqual(directory.databasePath, directory.path + "/relay.sqlite")
        XCTAssertEqual(directory.certificatePath, directory.path + "/tls-cert.pem")
        XCTAssertEqual(directory.warnings, [])

        let adminLine = String(decoding: try scratch.read("nested/data/admin-key"), as: UTF8.self)
        XCTAssertTrue(adminLine.hasSuffix("\n"))
        let adminText = String(adminLine.dropLast())
        XCTAssertEqual(adminText.count, 43)
        XCTAssertEqual(try Base64URL.decode(adminText).count, 32)
        XCTAssertEqual(directory.adminKey.secret, adminText)
        XCTAssertTrue(directory.adminKey.matches(adminText))

        let pem = String(decoding: try scratch.read("nested/data/dev-provider-key.p8"), as: UTF8.self)
        XCTAssertTrue(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        XCTAssertEqual(try P256PrivateKey(pem: pem).publicKey, try directory.devProviderKey.publicKey)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.databasePath))
    }

    func testSecondStartReusesEveryFileByteForByte() throws {
        let first = try DataDirectory.prepare(configuration())
        let before = try allNames.map { try scratch.read("nested/data/" + $0) }
        try Data("db".utf8).write(to: URL(fileURLWithPath: first.databasePath))
        let second = try DataDirectory.prepare(configuration())
        XCTAssertFalse(second.createdDirectory)
        XCTAssertEqual(second.files.map(\.status), [.reused, .reused, .reused, .reused, .reused])
        XCTAssertEqual(try allNames.map { try scratch.read("nested/data/" + $0) }, before)
        XCTAssertEqual(second.adminKey.secret, first.adminKey.secret)
        XCTAssertEqual(try second.devProviderKey.publicKey, try first.devProviderKey.publicKey)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: first.path).filter { $0.contains(".tmp-") }
        XCTAssertEqual(leftovers, [])
    }

    func testSecretFilesOthersMayUseAreRefused() throws {
        let first = try DataDirectory.prepare(configuration())
        for name in secretNames {
            for mode in [0o640, 0o604, 0o660] {
                try scratch.chmod(first.file(name), mode)
                XCTAssertThrowsError(try DataDirectory.prepare(configuration()), "\(name) \(mode)") { error in
                    XCTAssertEqual(
                        (error as? DataDirectoryError)?.description,
                        "\(first.file(name)): holds a secret but group or others may use it (mode 0\(String(mode, radix: 8))); "
                            + "run: chmod 600 \(first.file(name))")
                }
            }
            try scratch.chmod(first.file(name), 0o600)
        }
        XCTAssertNoThrow(try DataDirectory.prepare(configuration()))
    }

    func testDirectoryOthersMayWriteIsRefusedAndOneTheyMayListIsAWarning() throws {
        let first = try DataDirectory.prepare(configuration())
        try scratch.chmod(first.path, 0o770)
        XCTAssertThrowsError(try DataDirectory.prepare(configuration())) { error in
            XCTAssertEqual(
                (error as? DataDirectoryError)?.description,
                "\(first.path): group or others may write to it (mode 0770), so they could replace its keys; "
                    + "run: chmod 700 \(first.path)")
        }
        try scratch.chmod(first.path, 0o755)
        XCTAssertEqual(
            try DataDirectory.prepare(configuration()).warnings,
            ["\(first.path): group or others may list it (mode 0755); chmod 700 \(first.path) is recommended"])
    }

    func testBrokenFilesAreErrorsNamingTheFile() throws {
        let first = try DataDirectory.prepare(configuration())
        let adminKey = first.file("admin-key")
        for bad in ["short\n", "two words here and more\n", "line-one-is-long-enough\nline-two\n", ""] {
            try scratch.write("nested/data/admin-key", bad, mode: 0o600)
            XCTAssertThrowsError(try DataDirectory.prepare(configuration()), bad) { error in
                XCTAssertEqual(
                    (error as? DataDirectoryError)?.description,
                    "\(adminKey): must hold one line of 16 to 512 visible ASCII characters (the admin API key); "
                        + "delete the file to generate a new key")
            }
        }
        for own in ["my-own-admin-key-0123", "my-own-admin-key-0123\r\n", "my-own-admin-key-0123\n\n"] {
            try scratch.write("nested/data/admin-key", own, mode: 0o600)
            XCTAssertEqual(try DataDirectory.prepare(configuration()).adminKey.secret, "my-own-admin-key-0123")
        }

        try scratch.write("nested/data/dev-provider-key.p8", "not a key", mode: 0o600)
        XCTAssertThrowsError(try DataDirectory.prepare(configuration())) { error in
            let text = (error as? DataDirectoryError)?.description ?? ""
            XCTAssertTrue(
                text.hasPrefix("\(first.file("dev-provider-key.p8")): is not a P-256 private key PEM ("), text)
            XCTAssertTrue(text.hasSuffix("; delete the file to generate a new key"), text)
        }
        try FileManager.default.removeItem(atPath: first.file("dev-provider-key.p8"))
        try FileManager.default.removeItem(atPath: first.file("tls-key.pem"))
        XCTAssertThrowsError(try DataDirectory.prepare(configuration())) { error in
            XCTAssertTrue(
                "\(error)".contains("tls-cert.pem exists but \(first.file("tls-key.pem")) does not"), "\(error)")
        }
    }

    func testDataPathThatIsAFileIsRefused() throws {
        let file = try scratch.write("plain", "x")
        XCTAssertThrowsError(try DataDirectory.prepare(configuration("plain"))) { error in
            XCTAssertEqual(
                (error as? DataDirectoryError)?.description,
                "\(file): cannot use \(file): it exists and is not a directory")
        }
    }

    func testConfiguredTLSFilesAreUsedAndNotGenerated() throws {
        try scratch.write("relay.json", #"{"tls": {"certificate": "chain.pem", "key": "key.pem"}}"#)
        let flags = ["--config", "relay.json"]
        XCTAssertThrowsError(try DataDirectory.prepare(configuration("data", flags))) { error in
            XCTAssertEqual(
                (error as? DataDirectoryError)?.description,
                "\(scratch.file("chain.pem")): named by the config's tls.certificate, but there is no such file")
        }
        try scratch.write("chain.pem", "chain")
        try scratch.write("key.pem", "key", mode: 0o640)
        let directory = try DataDirectory.prepare(configuration("data", flags))
        XCTAssertEqual(directory.certificatePath, scratch.file("chain.pem"))
        XCTAssertEqual(directory.privateKeyPath, scratch.file("key.pem"))
        XCTAssertEqual(directory.files.prefix(2).map(\.status), [.configured, .configured])
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("tls-cert.pem")))
        let lines = directory.startupLines()
        XCTAssertTrue(lines.contains("try:   curl https://localhost:8443/healthz"))
        XCTAssertTrue(
            lines.contains { $0.hasPrefix("  \(self.scratch.file("chain.pem"))  configured  TLS certificate chain") })
        XCTAssertTrue(
            lines.contains { $0.hasPrefix("  \(self.scratch.file("key.pem"))    configured  TLS private key") })
    }

    func testStartupLinesSayWhereEachFileIsAndNeverTheSecrets() throws {
        let directory = try DataDirectory.prepare(configuration("my data", ["--listen", "0.0.0.0:9443"]))
        let lines = directory.startupLines()
        let quoted = "'\(directory.path)'"
        XCTAssertEqual(lines.first, "data directory \(directory.path) (created)")
        for name in allNames + ["relay.sqlite"] {
            XCTAssertTrue(lines.contains { $0.hasPrefix("  \(name)  ") }, name)
        }
        XCTAssertTrue(
            lines.contains("try:   curl --cacert '\(directory.path)/tls-cert.pem' https://localhost:9443/healthz"))
        XCTAssertTrue(lines.contains { $0.hasPrefix("token: activity-relay token --data \(quoted)") })
        XCTAssertTrue(lines.contains { $0.contains("team DEVTEAM000, key DEVKEY0000, any bundle ID") })
        XCTAssertTrue(directory.startupLines(port: 40_001).contains { $0.hasSuffix("https://localhost:40001/healthz") })
        XCTAssertFalse(lines.joined().contains(directory.adminKey.secret))
        XCTAssertFalse(lines.contains { $0.contains("\n") })
    }

    func testDevProviderTokenVerifiesWithTheDevKey() throws {
        let directory = try DataDirectory.prepare(configuration())
        let text = try directory.devProviderToken(issuedAt: 1_700_000_000)
        let token = try ProviderToken.parse(token: text) { try JSONValue(parsing: $0) }.get()
        XCTAssertEqual(token.keyID, "DEVKEY0000")
        XCTAssertEqual(token.teamID, "DEVTEAM000")
        XCTAssertEqual(token.issuedAt, 1_700_000_000)
        XCTAssertTrue(
            ES256.verify(
                signature: token.signature, message: token.signingInput, key: try directory.devProviderKey.publicKey))
    }
}
