import RelayCore
import RelayJSON
import XCTest

final class ProviderTokenAuthenticationTests: XCTestCase {
    private static let table: JSONObject = [
        "H": ["alg": "ES256", "kid": "DEVKEY0000"],
        "C1": ["iss": "DEVTEAM000", "iat": 1_000_000],
        "C2": ["iss": "DEVTEAM000", "iat": 1_000_500],
    ]

    private static func jwt(_ claims: String) -> String {
        [Array("H".utf8), Array(claims.utf8), Array(repeating: 1, count: 64)].map(Base64Codec.encodeURL)
            .joined(separator: ".")
    }

    func testKnownTokenSkipsVerificationButNotTheAgeRule() {
        var churn = ProviderTokenChurn()
        var verifications = 0
        let verify: (ProviderToken) -> APNsError? = { _ in
            verifications += 1
            return nil
        }
        let header = "bearer \(Self.jwt("C1"))"
        let parse = parser(table: Self.table)
        XCTAssertNil(reason(churn.authenticate(authorization: header, at: 1_000_010, parseJSON: parse, verify: verify)))
        XCTAssertNil(reason(churn.authenticate(authorization: header, at: 1_000_020, parseJSON: parse, verify: verify)))
        XCTAssertEqual(verifications, 1)
        XCTAssertEqual(
            reason(churn.authenticate(authorization: header, at: 1_003_601, parseJSON: parse, verify: verify)),
            .expiredProviderToken)
    }

    func testTheHeaderOfTheAcceptedTokenIsRememberedUntilAnotherIsAccepted() {
        var churn = ProviderTokenChurn()
        let parse = parser(table: Self.table)
        let first = "bearer \(Self.jwt("C1"))"
        let spaced = "bearer   \(Self.jwt("C1"))"
        let second = "bearer \(Self.jwt("C2"))"
        let ok: (ProviderToken) -> APNsError? = { _ in nil }
        XCTAssertNil(reason(churn.authenticate(authorization: first, at: 1_000_100, parseJSON: parse, verify: ok)))
        XCTAssertEqual(churn.currentAuthorization, first)
        // The same token in another header is known by its text, and that header is remembered.
        XCTAssertNil(reason(churn.authenticate(authorization: spaced, at: 1_000_200, parseJSON: parse, verify: ok)))
        XCTAssertEqual(churn.currentAuthorization, spaced)
        // A refused token leaves it; another token accepted replaces it.
        XCTAssertEqual(
            reason(churn.authenticate(authorization: second, at: 1_000_600, parseJSON: parse, verify: ok)),
            .tooManyProviderTokenUpdates)
        XCTAssertEqual(churn.currentAuthorization, spaced)
        XCTAssertNil(reason(churn.authenticate(authorization: second, at: 1_001_400, parseJSON: parse, verify: ok)))
        XCTAssertEqual(churn.currentAuthorization, second)
        // The first header is no longer the accepted token's: the full check refuses the change back.
        XCTAssertEqual(
            reason(churn.authenticate(authorization: first, at: 1_001_500, parseJSON: parse, verify: ok)),
            .tooManyProviderTokenUpdates)
        XCTAssertEqual(
            reason(churn.authenticate(authorization: second, at: 1_004_101, parseJSON: parse, verify: ok)),
            .expiredProviderToken, "the remembered header still has its token aged")
    }

    func testStepsRunInOrderAndFailuresKeepState() {
        var churn = ProviderTokenChurn()
        let parse = parser(table: Self.table)
        let first = "bearer \(Self.jwt("C1"))"
        let second = "bearer \(Self.jwt("C2"))"
        XCTAssertEqual(
            reason(churn.authenticate(authorization: nil, at: 1_000_000, parseJSON: parse) { _ in nil }),
            .missingProviderToken)
        XCTAssertEqual(
            reason(churn.authenticate(authorization: "bearer a.b.c", at: 1_000_000, parseJSON: parse) { _ in nil }),
            .invalidProviderToken)
        XCTAssertEqual(
            reason(
                churn.authenticate(authorization: first, at: 1_000_000, parseJSON: parse) { _ in
                    APNsError(.invalidProviderToken, "signature")
                }), .invalidProviderToken)
        XCTAssertNil(churn.current, "a refused token is not remembered")
        XCTAssertEqual(
            reason(churn.authenticate(authorization: first, at: 1_004_000, parseJSON: parse) { _ in nil }),
            .expiredProviderToken, "age after verification")
        XCTAssertNil(reason(churn.authenticate(authorization: first, at: 1_000_100, parseJSON: parse) { _ in nil }))
        XCTAssertEqual(
            reason(churn.authenticate(authorization: second, at: 1_000_600, parseJSON: parse) { _ in nil }),
            .tooManyProviderTokenUpdates)
        XCTAssertNil(reason(churn.authenticate(authorization: second, at: 1_001_300, parseJSON: parse) { _ in nil }))
        XCTAssertEqual(churn.current?.issuedAt, 1_000_500)
    }
}
