import Foundation
import RelayCore
import RelayHTTP
import RelayJSON
import XCTest

@testable import RelayServer

/// The provider routes' pieces in process: which paths they own, the HTTP/1.1 answer, the push
/// log's query and what the log keeps of request headers.
final class ProviderRoutesTests: XCTestCase {
    private var service: RelayService!
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("routes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        service = try RelayService.open(
            path: directory.appendingPathComponent("relay.sqlite").path, rules: .defaults, clockMode: .system,
            ids: SecureIdentifiers())
    }

    override func tearDown() {
        service?.store.close()
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    func testOwnsTheProviderPrefixesOnly() {
        let routes = ProviderRoutes(service: service, keyring: ProviderKeyring(keys: []))
        let owned = ["/3/device/ab", "/3/", "/3", "/1/apps/x/channels", "/4/broadcasts/apps/x", "/3/anything"]
        let others = ["/v1/pushes", "/healthz", "/30/device", "/", "/v1/3/device"]
        for path in owned { XCTAssertTrue(routes.owns(path), path) }
        for path in others { XCTAssertFalse(routes.owns(path), path) }
        let auth = AppAuth(adminKey: AdminKey("admin-key-0123456789")!, service: service)
        XCTAssertTrue(PushLogRoutes(service: service, auth: auth).owns("/v1/pushes"))
        XCTAssertFalse(PushLogRoutes(service: service, auth: auth).owns("/v1/pushes/1"))
    }

    func testOverHTTP1EveryProviderPathIs505() throws {
        let routes = ProviderRoutes(service: service, keyring: ProviderKeyring(keys: []))
        for path in ["/3/device/abcd", "/1/apps/com.example.app/channels", "/4/broadcasts/apps/com.example.app"] {
            let request = ServerRequest(
                request: HTTPRequest(method: "POST", path: path), context: ConnectionContext(httpVersion: "http/1.1"))
            let answered = expectation(description: path)
            routes.handle(request) { response in
                guard case .full(let full) = response else { return XCTFail("a full response") }
                XCTAssertEqual(full.status, 505)
                XCTAssertEqual(full.headers["content-type"], "application/json")
                XCTAssertEqual(try? JSONValue(parsing: full.body)["reason"], "HTTPVersionNotSupported")
                answered.fulfill()
            }
            wait(for: [answered], timeout: 5)
        }
    }

    func testPushLogQuery() throws {
        let good = try PushLogQuery(
            HTTPRequest(
                method: "GET", path: "/v1/pushes",
                query: "token=ABCD&apnsId=a&uniqueId=u&bundleId=b&channelId=c%2B1&limit=7&before=9"))
        XCTAssertEqual(
            good.filter, .init(token: "abcd", apnsId: "a", uniqueId: "u", channelId: "c+1", bundleId: "b"))
        XCTAssertEqual(good.limit, 7)
        XCTAssertEqual(good.before, 9)
        XCTAssertEqual(
            try PushLogQuery(HTTPRequest(method: "GET", path: "/v1/pushes")).limit, PushLogQuery.defaultLimit)
        let refused: [(String, String)] = [
            ("limit=0", "limit"), ("limit=1001", "limit"), ("limit=ten", "limit"), ("before=0", "before"),
            ("apns-id=x", "apns-id"), ("token=" + String(repeating: "a", count: 513), "token"),
        ]
        for (query, parameter) in refused {
            XCTAssertThrowsError(try PushLogQuery(HTTPRequest(method: "GET", path: "/v1/pushes", query: query)), query)
            {
                XCTAssertEqual(($0 as? PushLogQuery.Problem)?.parameter, parameter, query)
            }
        }
    }

    func testAConnectionRemembersItsLatestRedactedTokenOnly() {
        let connection = ConnectionContext()
        let first = ProviderToken(
            raw: "a.b.c", keyID: "K", teamID: "T", issuedAt: 1_700_000_000, signingInput: [], signature: [])
        let second = ProviderToken(
            raw: "d.e.f", keyID: "K2", teamID: "T", issuedAt: 1_700_000_000.5, signingInput: [], signature: [])
        for token in [first, first, second, first, nil] {
            XCTAssertEqual(connection.redactedAuthorization(token), ProviderRequestRecord.redacted(token))
        }
        XCTAssertEqual(connection.redactedAuthorization(second), "bearer (redacted; kid=K2 iss=T iat=1700000000.5)")
    }

    func testLoggedHeadersNeverHoldTheToken() {
        let headers = HTTPHeaders([
            ("authorization", "bearer secret.jwt.value"), ("apns-topic", "t"), ("x-dup", "1"), ("x-dup", "2"),
        ])
        let unverified = ProviderRequestRecord.headers(headers, token: nil)
        XCTAssertEqual(unverified, ["authorization": "(redacted)", "apns-topic": "t", "x-dup": "1, 2"])
        let token = ProviderToken(
            raw: "secret.jwt.value", keyID: "K", teamID: "T", issuedAt: 1_700_000_000, signingInput: [], signature: [])
        XCTAssertEqual(
            ProviderRequestRecord.headers(headers, token: token).object["authorization"],
            "bearer (redacted; kid=K iss=T iat=1700000000)")
        // Without repeats the fields are kept as they came, and written as the same object.
        let plain = ProviderRequestRecord.headers(
            HTTPHeaders([("apns-topic", "t"), ("authorization", "bearer x"), ("apns-id", "i")]), token: nil)
        guard case .fields(let fields) = plain else { return XCTFail("expected the fields, got \(plain)") }
        XCTAssertEqual(fields.map(\.name), ["apns-topic", "authorization", "apns-id"])
        XCTAssertEqual(plain.object, ["apns-topic": "t", "authorization": "(redacted)", "apns-id": "i"])
        XCTAssertEqual(ProviderRequestRecord.prefix("0123456789abcdef"), "01234567")
    }

    /// The push path's form: the request's checked fields shared, logged as the form above logs
    /// them; repeated names and long values fall back to it.
    func testLoggedHeadersShareTheCheckedFieldsWhenNothingChanges() {
        let pairs = [("apns-topic", "t"), ("authorization", "bearer secret.jwt.value"), ("apns-id", "i")]
        let shared = ProviderRequestRecord.headers(
            APNsHeaderFields(pairs.map { (name: $0.0, value: $0.1) }), http: HTTPHeaders(pairs), token: nil)
        guard case .redacting(let fields, let authorization) = shared else {
            return XCTFail("expected the shared fields, got \(shared)")
        }
        XCTAssertEqual(fields.map(\.value), ["t", "bearer secret.jwt.value", "i"], "the request's own array")
        XCTAssertEqual(authorization, "(redacted)")
        XCTAssertEqual(shared, ProviderRequestRecord.headers(HTTPHeaders(pairs), token: nil))
        XCTAssertEqual(shared.object, ["apns-topic": "t", "authorization": "(redacted)", "apns-id": "i"])

        for other in [
            [("apns-topic", "t"), ("x-dup", "1"), ("x-dup", "2")],
            [("apns-topic", String(repeating: "v", count: ProviderRequestRecord.maxHeaderValueBytes + 1))],
        ] {
            let logged = ProviderRequestRecord.headers(
                APNsHeaderFields(other.map { (name: $0.0, value: $0.1) }), http: HTTPHeaders(other), token: nil)
            XCTAssertEqual(logged, ProviderRequestRecord.headers(HTTPHeaders(other), token: nil))
            if case .redacting = logged { XCTFail("\(other.map(\.0)) needs the full form") }
        }
    }

    func testTokenPrefixes() {
        XCTAssertEqual(ProviderRequestRecord.prefix("0123456789abcdef"), "01234567")
        XCTAssertEqual(ProviderRequestRecord.prefix(nil), "-")
        XCTAssertEqual(ProviderRequestRecord.prefix("short"), "short")
        // A character cut in two is left out whole.
        XCTAssertEqual(ProviderRequestRecord.prefix("0123456789aé", 12), "0123456789a")
        XCTAssertEqual(ProviderRequestRecord.prefix("0123456789aéb", 13), "0123456789aé")
    }
}
