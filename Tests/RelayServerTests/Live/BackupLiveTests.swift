import Foundation
import RelayCore
import RelayTestKit
import XCTest

/// The README's backup recipe: `sqlite3 relay.sqlite ".backup FILE"` while the relay writes gives
/// a copy that a relay starts from with everything acknowledged before the backup.
final class BackupLiveTests: XCTestCase {
    func testABackupTakenWhileRunningRestores() throws {
        let relay = try KillableRelay(name: "backup")
        var devices: [String] = []
        for _ in 0..<5 {
            let created = try relay.api.expect(201, "POST", "/v1/devices")
            devices.append(try XCTUnwrap(created["deviceId"]?.stringValue))
        }
        let backup = relay.data + "/backup.sqlite"
        let copied = try ChildProcess.run(["sqlite3", relay.data + "/relay.sqlite", ".backup \(backup)"])
        XCTAssertEqual(copied.status, 0, copied.stderr)
        // Written after the backup: not in it.
        try relay.api.expect(201, "POST", "/v1/devices")
        try relay.stop()

        let restored = relay.data + "/restored"
        try FileManager.default.createDirectory(atPath: restored, withIntermediateDirectories: false)
        chmod(restored, 0o700)
        for name in ["admin-key", "tls-cert.pem", "tls-key.pem", "dev-provider-key.p8"] {
            try FileManager.default.copyItem(atPath: relay.data + "/" + name, toPath: restored + "/" + name)
        }
        try FileManager.default.copyItem(atPath: backup, toPath: restored + "/relay.sqlite")
        let port = try RelayBinary.freePort()
        let child = try RelayBinary.serve(data: restored, port: port)
        defer {
            kill(child.processIdentifier, SIGTERM)
            _ = try? child.wait(timeout: 20)
        }
        let api = AppAPIClient(base: "https://localhost:\(port)", caPath: relay.ca, key: relay.admin)
        let listed = try api.expect(200, "GET", "/v1/devices")
        let ids = (listed["items"]?.arrayValue ?? []).compactMap { $0["deviceId"]?.stringValue }
        XCTAssertEqual(Set(ids), Set(devices))
    }
}
