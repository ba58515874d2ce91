import Foundation
import RelayCore
import RelayJSON
import RelayServer
import RelayTestKit
import XCTest

/// A thousand subscribers as HTTP/2 streams over ten connections each receive every event of a burst.
final class FanOutTests: XCTestCase {
    private var relay: LiveRelay!

    override func setUpWithError() throws {
        relay = try LiveRelay()
    }

    override func tearDown() {
        relay?.stop()
        relay = nil
    }

    func testThousandMultiplexedSubscribersEachReceiveTheWholeBurst() throws {
        let device = try relay.createDevice()
        let activity = try relay.startActivity(deviceId: device.id)
        let burst = 50
        let client = try ChildProcess([
            "python3", Fixtures.path("stream_fanout.py"), "--port", String(relay.port), "--cafile", relay.caPath,
            "--key", LiveRelay.adminKey, "--connections", "10", "--streams", "100", "--events", String(burst),
            "--timeout", "90", "--path", "/v1/stream?types=activity.updated",
        ])
        relay.waitForSubscribers(1000, timeout: 60)
        for batch in 0..<5 { try relay.updateActivity(activity, count: 10, from: batch * 10 + 1) }
        let outcome = try client.wait(timeout: 120)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let report = try JSONValue(parsing: outcome.stdout)
        XCTAssertEqual(report["streams"]?.int64Value, 1000, outcome.stdout.prefix(300) + "")
        XCTAssertEqual(report["ok"]?.int64Value, 1000)
        XCTAssertEqual(report["complete"]?.int64Value, 1000, "every subscriber got exactly the burst")
        XCTAssertEqual(report["inOrder"]?.int64Value, 1000)
        XCTAssertEqual(report["ids"]?.arrayValue?.count, burst, "the same \(burst) events everywhere")
    }
}
