import RelayCore
import RelayHTTP
import XCTest

@testable import RelayServer

/// The stream's pure parts, in-process: query parsing, ticket narrowing, the ticket store.
final class StreamRequestParsingTests: XCTestCase {
    func testQueryParsing() {
        let cases: [(query: String, header: String?, expected: StreamQuery?)] = [
            ("", nil, StreamQuery()),
            (
                "deviceId=d1&bundleId=com.a&activityId=a1&alarmId=x1", nil,
                StreamQuery(filter: EventFilter(deviceId: "d1", bundleId: "com.a", activityId: "a1", alarmId: "x1"))
            ),
            (
                "types=activity.updated,%20alarm.updated,", nil,
                StreamQuery(filter: EventFilter(types: [.activityUpdated, .alarmUpdated]))
            ),
            ("types=", nil, StreamQuery()),
            ("lastEventId=41", nil, StreamQuery(lastEventID: 41)),
            ("lastEventId=41", "42", StreamQuery(lastEventID: 42)),
            ("ticket=abc&deviceId=", nil, StreamQuery(ticket: "abc")),
            ("snapshot=true", nil, StreamQuery(snapshot: true)),
            ("snapshot=maybe", nil, nil),
            ("types=activity.bogus", nil, nil),
            ("types=snapshot", nil, nil),
            ("lastEventId=-1", nil, nil),
            ("lastEventId=99999999999999999999", nil, nil),
            ("", "abc", nil),
            ("deviceId=" + String(repeating: "d", count: 300), nil, nil),
            ("deviceId=d1&cacheBust=3", nil, nil),
            ("deviceid=d1", nil, nil),
            ("unknown=", nil, nil),
        ]
        for item in cases {
            var headers = HTTPHeaders()
            if let header = item.header { headers.add("last-event-id", header) }
            let request = HTTPRequest(method: "GET", path: "/v1/stream", query: item.query, headers: headers)
            switch StreamQuery.parse(request) {
            case .success(let query): XCTAssertEqual(query, item.expected, item.query)
            case .failure(let error):
                XCTAssertNil(item.expected, "\(item.query): \(error.message)")
                XCTAssertEqual(error.status, 400)
            }
        }
    }

    func testTicketFilterMayOnlyBeNarrowed() {
        let granted = EventFilter(deviceId: "d1", types: [.activityUpdated, .alarmUpdated])
        let narrowed = StreamRoutes.narrow(
            granted, by: EventFilter(deviceId: "d1", bundleId: "b", types: [.alarmUpdated]))
        XCTAssertEqual(try narrowed.get(), EventFilter(deviceId: "d1", bundleId: "b", types: [.alarmUpdated]))
        XCTAssertThrowsError(try StreamRoutes.narrow(granted, by: EventFilter(deviceId: "d2")).get())
        XCTAssertThrowsError(try StreamRoutes.narrow(granted, by: EventFilter(types: [.clock])).get())
    }

    func testDeviceScopeForcesItsDevice() {
        XCTAssertEqual(try AppPrincipal.device("d1").limit(EventFilter()).get(), EventFilter(deviceId: "d1"))
        XCTAssertThrowsError(try AppPrincipal.device("d1").limit(EventFilter(deviceId: "d2")).get())
        XCTAssertEqual(try AppPrincipal.admin.limit(EventFilter(deviceId: "d2")).get(), EventFilter(deviceId: "d2"))
    }

    func testTicketStoreIsSingleUseAndExpires() throws {
        let tickets = StreamTickets(lifetime: 60)
        let filter = EventFilter(deviceId: "d1")
        let (first, grant) = try tickets.issue(principal: .device("d1"), filter: filter, now: 1000).get()
        XCTAssertEqual(grant, StreamTickets.Grant(principal: .device("d1"), filter: filter, expiresAt: 1060))
        var nearMiss = Array(first.utf8)
        nearMiss[0] = nearMiss[0] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        XCTAssertNil(tickets.redeem(String(decoding: nearMiss, as: UTF8.self), now: 1001), "a near miss is unknown")
        XCTAssertEqual(tickets.redeem(first, now: 1001), grant)
        XCTAssertNil(tickets.redeem(first, now: 1002), "used")
        let (second, _) = try tickets.issue(principal: .admin, filter: EventFilter(), now: 1000).get()
        XCTAssertNil(tickets.redeem(second, now: 1060), "expired at expiresAt")
        let a = try tickets.issue(principal: .admin, filter: EventFilter(), now: 0).get().ticket
        let b = try tickets.issue(principal: .admin, filter: EventFilter(), now: 0).get().ticket
        XCTAssertNotEqual(a, b)
    }

    func testTicketBodyParsing() {
        XCTAssertEqual(try StreamRoutes.ticketFilter([]).get(), EventFilter())
        XCTAssertEqual(
            try StreamRoutes.ticketFilter(Array(#"{"alarmId": "x", "types": "alarm.updated,alarm.removed"}"#.utf8))
                .get(),
            EventFilter(alarmId: "x", types: [.alarmUpdated, .alarmRemoved]))
        for bad in [#"{"deviceId": 3}"#, #"{"types": [1]}"#, "nope", #"{"deviceId": ""}"#] {
            XCTAssertThrowsError(try StreamRoutes.ticketFilter(Array(bad.utf8)).get(), bad)
        }
    }
}
