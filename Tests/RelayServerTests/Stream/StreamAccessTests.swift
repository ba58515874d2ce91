import Foundation
import RelayCore
import RelayHTTP
import RelayJSON
import RelayServer
import XCTest

/// Who may read what: the admin key, device keys, and stream tickets.
final class StreamAccessTests: XCTestCase {
    private var relay: LiveRelay!

    override func setUpWithError() throws {
        relay = try LiveRelay { options in options.routeSettings.stream.ticketLifetime = 0.5 }
    }

    override func tearDown() {
        relay?.stop()
        relay = nil
    }

    func testDeviceKeySeesOnlyItsOwnDevice() throws {
        let mine = try relay.createDevice()
        let theirs = try relay.createDevice()
        let forbidden = try relay.request("GET", "/v1/stream?deviceId=\(theirs.id)", key: mine.key)
        XCTAssertEqual(forbidden.status, 403)
        XCTAssertEqual(try JSONValue(parsing: forbidden.text)["error"]?.stringValue, "forbidden")
        let stream = try relay.openStream(key: mine.key)  // no filter: forced to its device
        let admin = try relay.openStream()
        relay.waitForSubscribers(2)
        _ = try relay.startActivity(deviceId: theirs.id)
        let own = try relay.startActivity(deviceId: mine.id)
        let seen = try stream.collect(2)
        XCTAssertEqual(seen.map { $0.json["activity"]?["id"]?.stringValue }, [own, nil])
        XCTAssertEqual(seen.map { $0.json["deviceId"]?.stringValue }, [mine.id, mine.id], "its timeline.reload too")
        XCTAssertEqual(try stream.drain(for: 0.3).count, 0, "nothing of the other device")
        XCTAssertEqual(try admin.collect(4).count, 4, "the admin key sees both, each with its reload")
        stream.close()
        admin.close()
    }

    func testTicketOpensOneStreamWithItsScopeAndFilter() throws {
        let mine = try relay.createDevice()
        let theirs = try relay.createDevice()
        let minted = try relay.request(
            "POST", "/v1/stream-tickets", key: mine.key, body: #"{"types": ["activity.started"]}"#)
        XCTAssertEqual(minted.status, 201, minted.text)
        let body = try JSONValue(parsing: minted.text)
        let ticket = try XCTUnwrap(body["ticket"]?.stringValue)
        XCTAssertEqual(ticket.count, 43, "32 random bytes, base64url")
        XCTAssertEqual(body["url"]?.stringValue, "/v1/stream?ticket=\(ticket)")
        let expiresAt = try XCTUnwrap(body["expiresAt"]?.doubleValue)
        XCTAssertEqual(expiresAt, Date().timeIntervalSince1970 + 0.5, accuracy: 2)

        let stream = try relay.openStream("/v1/stream?ticket=\(ticket)", key: nil)
        XCTAssertEqual(stream.headers["access-control-allow-origin"], "*", "readable by a page on another origin")
        relay.waitForSubscribers(1)
        _ = try relay.startActivity(deviceId: theirs.id)
        let own = try relay.startActivity(deviceId: mine.id)
        let events = try stream.collect(1)
        XCTAssertEqual(events.map(\.event), ["activity.started"])
        XCTAssertEqual(events.first?.json["activity"]?["id"]?.stringValue, own)
        stream.close()

        let again = try relay.request("GET", "/v1/stream?ticket=\(ticket)", key: nil)
        XCTAssertEqual(again.status, 401, "single use")
    }

    func testTicketRefusals() throws {
        let mine = try relay.createDevice()
        let theirs = try relay.createDevice()
        // Minting for another device with a device key.
        let foreign = try relay.request(
            "POST", "/v1/stream-tickets", key: mine.key, body: #"{"deviceId": "\#(theirs.id)"}"#)
        XCTAssertEqual(foreign.status, 403)
        XCTAssertEqual(try relay.request("POST", "/v1/stream-tickets", key: nil).status, 401)
        XCTAssertEqual(try relay.request("POST", "/v1/stream-tickets", body: #"{"types": ["nope"]}"#).status, 400)
        XCTAssertEqual(try relay.request("POST", "/v1/stream-tickets", body: "[1]").status, 400)

        // Widening the ticket's scope or filter when redeeming.
        let scoped = try ticket(key: mine.key, body: "")
        XCTAssertEqual(
            try relay.request("GET", "/v1/stream?ticket=\(scoped)&deviceId=\(theirs.id)", key: nil).status, 403)
        let typed = try ticket(key: LiveRelay.adminKey, body: #"{"types": "alarm.updated"}"#)
        XCTAssertEqual(try relay.request("GET", "/v1/stream?ticket=\(typed)&types=clock", key: nil).status, 403)

        // Expired, unknown, and a ticket presented as a bearer key.
        let expiring = try ticket(key: LiveRelay.adminKey, body: "")
        usleep(700_000)
        XCTAssertEqual(try relay.request("GET", "/v1/stream?ticket=\(expiring)", key: nil).status, 401)
        XCTAssertEqual(try relay.request("GET", "/v1/stream?ticket=AAAA", key: nil).status, 401)
        let unused = try ticket(key: LiveRelay.adminKey, body: "")
        XCTAssertEqual(try relay.request("GET", "/v1/stream", key: unused).status, 401, "a ticket is not a key")
    }

    private func ticket(key: String, body: String) throws -> String {
        let response = try relay.request("POST", "/v1/stream-tickets", key: key, body: body)
        XCTAssertEqual(response.status, 201, response.text)
        return try XCTUnwrap(try JSONValue(parsing: response.text)["ticket"]?.stringValue)
    }
}
