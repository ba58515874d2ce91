import Foundation
import RelayCore
import RelayServer
import XCTest

/// A virtual clock moved ahead of real time: a push ignored as old says the clock is virtual and
/// how far ahead it is, and the data directory does not start on the system clock.
final class VirtualClockOffsetTests: XCTestCase {
    private var relay: LiveRelay?
    private let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("relay-test-\(UUID().uuidString)")

    override func tearDown() {
        relay?.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    private func start(_ mode: RelayTimeSource.Mode) throws -> LiveRelay {
        let started = try LiveRelay(directory: directory) { $0.clockMode = mode }
        relay = started
        return started
    }

    func testAnIgnoredPushSaysTheClockIsVirtualAndHowFarAhead() throws {
        let first = try start(.virtual)
        let api = AppAPIClient(relay: first)
        let device = try XCTUnwrap(try api.expect(201, "POST", "/v1/devices")["deviceId"]?.stringValue)
        try api.expect(200, "POST", "/v1/clock", json: ["advanceBy": 43_200])
        let activity = try api.expect(
            201, "POST", "/v1/activities",
            json: [
                "deviceId": .string(device), "bundleId": "com.example.app", "attributesType": "DeliveryAttributes",
                "attributes": [:], "contentState": ["n": 0], "pushType": "token",
            ])
        let token = try XCTUnwrap(activity["pushToken"]?.stringValue)
        let realNow = Int(Date().timeIntervalSince1970)
        try first.provider(
            "POST", "/3/device/\(token)",
            headers: ["apns-topic: com.example.app.push-type.liveactivity", "apns-push-type: liveactivity"],
            body: #"{"aps":{"event":"update","timestamp":\#(realNow),"content-state":{"n":1}}}"#, expect: 200)
        let logged = try XCTUnwrap(try api.expect(200, "GET", "/v1/pushes?token=\(token)")["items"]?.arrayValue?.first)
        XCTAssertEqual(logged["outcome"], "ignored")
        let hints = logged["hint"]?.stringValue ?? ""
        // Twelve hours, less the moments since the virtual clock started at the first start.
        XCTAssertNotNil(
            hints.range(of: "the relay's clock is virtual, (12h 0m|11h 59m)", options: .regularExpression), hints)
        XCTAssertTrue(hints.contains("ahead of real time"), hints)
    }

    func testADataDirectoryWhoseVirtualClockIsAheadDoesNotStartOnTheSystemClock() throws {
        let first = try start(.virtual)
        try AppAPIClient(relay: first).expect(200, "POST", "/v1/clock", json: ["advanceBy": 7200])
        first.stop()
        relay = nil
        XCTAssertThrowsError(try start(.system)) { error in
            let text = "\(error)"
            XCTAssertNotNil(
                text.range(of: "its virtual clock stands (2h 0m|1h 59m)", options: .regularExpression), text)
            XCTAssertTrue(text.contains("--clock virtual"), text)
        }
        _ = try start(.virtual)
    }

    func testAVirtualClockNotAheadStartsOnTheSystemClock() throws {
        try start(.virtual).stop()
        relay = nil
        _ = try start(.system)
    }
}
